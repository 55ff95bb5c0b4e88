import { HOUR, hourStart, type Offset } from './features.js';

/**
 * When to check a hub next. Three schedules, each pure (history or prediction in,
 * epoch ms out), so the command and the bench can run any of them:
 *  - learned: check when the expected number of new items since the last check, the integral
 *    of the group's predicted hourly rate (model.ts), reaches a threshold (default 1), within
 *    [min, max] after the last check; a fixed interval while the group has no model yet;
 *  - Poisson: Cho & Garcia-Molina's change-rate estimate from the check history, no time of day;
 *  - fixed intervals.
 */

export interface Bounds {
  /** never check sooner than this after the last check (ms) */
  min: number;
  /** never wait longer than this (ms) */
  max: number;
}

export interface LearnedOptions extends Bounds {
  /** expected new items that make a check worth it (default 1) */
  threshold?: number;
  /** the interval while there is no model (ms) */
  fixed: number;
  /** the rate's hours are those of this zone offset, minutes east of UTC (RateModel.offset; default 0) */
  offset?: Offset;
}

function checkBounds(b: Bounds): void {
  if (!(b.min > 0 && b.max >= b.min)) throw new RangeError(`need 0 < min ≤ max (min ${b.min}, max ${b.max})`);
}

const clamp = (last: number, t: number, b: Bounds): number => Math.min(last + b.max, Math.max(last + b.min, t));

/** The next check at a fixed interval. */
export function fixedNext(last: number, interval: number): number {
  if (!(interval > 0)) throw new RangeError(`the interval must be positive (${interval})`);
  return last + interval;
}

/**
 * The first time after `last` at which the expected number of new items, ∫ rate, reaches
 * `threshold`; `rate(t)` is items per hour in the hour holding t (RateModel.rate), taken as
 * constant within each hour (of the zone `offset`). Bounded to [last + min, last + max]: a dead hour never waits
 * past max, a burst never checks sooner than min. With `rate` null (too little history) the
 * fixed interval, itself bounded.
 */
export function learnedNext(last: number, rate: ((t: number) => number) | null, opts: LearnedOptions): number {
  checkBounds(opts);
  if (rate === null) return clamp(last, fixedNext(last, opts.fixed), opts);
  const threshold = opts.threshold ?? 1;
  if (!(threshold > 0)) throw new RangeError(`the threshold must be positive (${threshold})`);
  const end = last + opts.max;
  let expected = 0;
  let t = last;
  while (t < end) {
    const hourEnd = Math.min(end, hourStart(t, opts.offset ?? 0) + HOUR);
    const r = Math.max(0, rate(t)) / HOUR; // items per ms
    const gain = r * (hourEnd - t);
    if (expected + gain >= threshold) return clamp(last, t + (threshold - expected) / r, opts);
    expected += gain;
    t = hourEnd;
  }
  return end;
}

/**
 * Cho & Garcia-Molina's estimator of a page's change rate (changes per ms) from n checks at
 * interval I of which X found a change: λ̂ = −ln((n − X + 0.5) / (n + 0.5)) / I. Unlike X / (n·I)
 * it does not underestimate when a check can hide several changes, and stays finite at X = n.
 */
export function changeRate(n: number, changed: number, interval: number): number {
  if (!(n >= 0 && changed >= 0 && changed <= n && interval > 0)) throw new RangeError(`changeRate: need 0 ≤ X ≤ n and I > 0 (n ${n}, X ${changed}, I ${interval})`);
  return Math.log((n + 0.5) / (n - changed + 0.5)) / interval; // = −ln((n − X + 0.5)/(n + 0.5)) / I, without a −0
}

export interface Check {
  /** when the check was made (epoch ms) */
  at: number;
  /** whether it found at least one new item */
  found: boolean;
}

/**
 * λ̂ from a hub's check history (oldest first): each check after the first is one of the n
 * checks, X of them found something, I the mean interval between them (the estimator assumes
 * equal intervals; the mean is the usual stand-in when they vary). Null with fewer than two checks.
 */
export function changeRateOf(history: readonly Check[]): number | null {
  if (history.length < 2) return null;
  const n = history.length - 1;
  const changed = history.slice(1).filter((c) => c.found).length;
  const interval = (history.at(-1)!.at - history[0]!.at) / n;
  return interval > 0 ? changeRate(n, changed, interval) : null;
}

/**
 * The Poisson baseline's next check: when λ̂ · t reaches the threshold (the expected number of
 * changes since the last check), bounded like the learned schedule; the fixed interval while the
 * history is too short. λ̂ = 0 (nothing ever found) waits the maximum.
 */
export function poissonNext(history: readonly Check[], opts: LearnedOptions): number {
  checkBounds(opts);
  if (history.length === 0) throw new RangeError('poissonNext needs the last check');
  const last = history.at(-1)!.at;
  const rate = changeRateOf(history);
  if (rate === null) return clamp(last, fixedNext(last, opts.fixed), opts);
  if (rate === 0) return last + opts.max;
  return clamp(last, last + (opts.threshold ?? 1) / rate, opts);
}
