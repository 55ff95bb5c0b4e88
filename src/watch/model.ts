import { createRequire } from 'node:module';
import type { RandomForestRegression } from 'ml-random-forest';
import { encodeHour, HOUR, hourAndDay, type HourCount, type Offset } from './features.js';

// ml-random-forest (and ml-matrix, ml-cart under it) is loaded on first fit: only `watch` fits
// models, and every other command (a crawl) starts without those modules.
const forestModule = (): { RandomForestRegression: typeof RandomForestRegression } =>
  createRequire(import.meta.url)('ml-random-forest') as { RandomForestRegression: typeof RandomForestRegression };

/**
 * A group's publishing rhythm: a random-forest regression (ml-random-forest 2.1.0)
 * of new items per hour on hour of day and day of week (features.ts), and the article's two
 * checks of it, R² by random k-fold cross-validation and R² on the newest data. Pure: rows in,
 * numbers out; seeded, so the same rows give the same model.
 *
 * The forest is fitted on one row per (hour of day, day of week) cell holding the cell's mean
 * count, not on the 720 hourly rows. Every hour of a cell has the same features, so no tree can
 * tell them apart and a leaf predicts a mean either way; with 4 or 5 hours in every cell of
 * 30 days the splits chosen are nearly those on the raw rows (exactly, were the cells equal).
 * The gain is speed: ml-cart tries a split at every change of the target along each feature,
 * so its cost grows with the square of the rows: 720 rows took 0.4–0.8 s a tree, 168 about
 * 50 ms. The differences: bootstrapping draws cells, not hours, and ml-cart's leaf size (3)
 * counts cells. Since the features take only 168 values, the fitted model is kept as a table
 * of 168 predicted rates, and rate() is a lookup.
 */

export interface ForestOptions {
  /** trees in the forest (default 30) */
  trees?: number;
  /** 32-bit integer seed of the forest's draws and the cross-validation folds (default 42) */
  seed?: number;
  /** a tree stops splitting at this depth (default: none) */
  maxDepth?: number;
  /** zone offset of the rows' hours, minutes east of UTC (default 0) */
  offset?: Offset;
}

const CELLS = 24 * 7;

/**
 * History a group needs before its model sets the schedule: one week, so that every hour of
 * the week has been watched at least once (a forest never shown a Sunday morning would guess
 * it from the other days). Until then the hub is checked at a fixed interval.
 */
export const MIN_HISTORY = 7 * 24 * HOUR;

/** Whether a group watched since `since` has history enough for a model at `now`. */
export const modelReady = (since: number, now: number): boolean => now - since >= MIN_HISTORY;

const cellOf = (t: number, offset: Offset): number => {
  const { hour, day } = hourAndDay(t, offset);
  return day * 24 + hour;
};

export class RateModel {
  private constructor(
    private readonly table: Float64Array,
    readonly offset: Offset,
  ) {}

  /** Fit on hourly counts (any number of rows; a group's 720 are the article's). */
  static fit(rows: readonly HourCount[], opts: ForestOptions = {}): RateModel {
    const offset = opts.offset ?? 0;
    const sum = new Float64Array(CELLS);
    const n = new Float64Array(CELLS);
    for (const r of rows) {
      const c = cellOf(r.start, offset);
      sum[c] += r.count;
      n[c]++;
    }
    const x: number[][] = [];
    const y: number[] = [];
    for (let c = 0; c < CELLS; c++) {
      if (n[c] === 0) continue;
      x.push(cellFeatures(c));
      y.push(sum[c]! / n[c]!);
    }
    if (x.length === 0) throw new RangeError('no rows to fit');
    const forest = new (forestModule().RandomForestRegression)({
      nEstimators: opts.trees ?? 30,
      seed: seedOf(opts.seed),
      noOOB: true, // out-of-bag scores are not used: validation is by folds and the newest data
      treeOptions: opts.maxDepth === undefined ? {} : { maxDepth: opts.maxDepth },
    });
    forest.train(x, y);
    const all = Array.from({ length: CELLS }, (_, c) => cellFeatures(c));
    return new RateModel(Float64Array.from(forest.predict(all), (v) => Math.max(0, v)), offset);
  }

  /** Predicted new items per hour in the hour holding `t` (epoch ms). */
  rate(t: number): number {
    return this.table[cellOf(t, this.offset)]!;
  }

  /** The predicted rate of each hour of the week, index day * 24 + hour (day 0 = Sunday), for printing. */
  week(): number[] {
    return [...this.table];
  }

  /** Predicted counts of rows (their hours' rates). */
  predict(rows: readonly HourCount[]): number[] {
    return rows.map((r) => this.rate(r.start));
  }
}

/** A Sunday midnight, UTC: the hour of cell c (day*24+hour) is c hours after it. */
const SUNDAY = Date.UTC(1970, 0, 4);
/** The features of cell day*24+hour: those of any hour of that cell. */
const cellFeatures = (c: number): number[] => encodeHour(SUNDAY + c * HOUR, 0);

function seedOf(seed = 42): number {
  if (!Number.isInteger(seed)) throw new RangeError(`the seed must be an integer, not ${seed}`);
  return seed | 0;
}

/**
 * Coefficient of determination, 1 − SS_res / SS_tot. When the actual values are all equal
 * (SS_tot = 0) it is 1 for an exact prediction and 0 otherwise, rather than NaN or −∞.
 */
export function r2(actual: readonly number[], predicted: readonly number[]): number {
  if (actual.length !== predicted.length) throw new RangeError('r2: lengths differ');
  if (actual.length === 0) return 0;
  const mean = actual.reduce((a, b) => a + b, 0) / actual.length;
  let res = 0;
  let tot = 0;
  for (let i = 0; i < actual.length; i++) {
    res += (actual[i]! - predicted[i]!) ** 2;
    tot += (actual[i]! - mean) ** 2;
  }
  if (tot === 0) return res === 0 ? 1 : 0;
  return 1 - res / tot;
}

/**
 * R² by random k-fold cross-validation: the rows are shuffled (seeded), cut into `folds` parts,
 * each predicted by a model fitted on the others; R² over all the held-out predictions pooled.
 */
export function crossValidatedR2(rows: readonly HourCount[], folds = 5, opts: ForestOptions = {}): number {
  if (folds < 2 || rows.length < folds) throw new RangeError(`cross-validation needs 2 ≤ folds ≤ rows (${folds}, ${rows.length})`);
  const order = shuffled(rows.length, seedOf(opts.seed));
  const predicted = new Array<number>(rows.length);
  for (let f = 0; f < folds; f++) {
    const test = order.filter((_, i) => i % folds === f);
    const held = new Set(test);
    const model = RateModel.fit(rows.filter((_, i) => !held.has(i)), opts);
    for (const i of test) predicted[i] = model.rate(rows[i]!.start);
  }
  return r2(rows.map((r) => r.count), predicted);
}

/**
 * R² on the newest data: fit on the older rows (in time order), test on the newest `share` of
 * them (default 20 %: the last 6 of 30 days), as a schedule meets the future.
 */
export function newestR2(rows: readonly HourCount[], share = 0.2, opts: ForestOptions = {}): number {
  const sorted = [...rows].sort((a, b) => a.start - b.start);
  const cut = Math.round(sorted.length * (1 - share));
  if (cut < 1 || cut >= sorted.length) throw new RangeError(`newestR2: share ${share} leaves no training or no test rows`);
  const test = sorted.slice(cut);
  const model = RateModel.fit(sorted.slice(0, cut), opts);
  return r2(test.map((r) => r.count), model.predict(test));
}

export interface Validation {
  crossValidated: number;
  newest: number;
}

/** Both of the article's checks (what `beebot watch model` prints per group). */
export function validate(rows: readonly HourCount[], opts: ForestOptions & { folds?: number; newestShare?: number } = {}): Validation {
  return { crossValidated: crossValidatedR2(rows, opts.folds ?? 5, opts), newest: newestR2(rows, opts.newestShare ?? 0.2, opts) };
}

/** 0 … n−1 in a seeded random order (Fisher–Yates over mulberry32). */
function shuffled(n: number, seed: number): number[] {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
