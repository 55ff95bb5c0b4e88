import type { Appearance } from './appearance.js';

/**
 * The model's data: per group, the number of new items in each hour of the last 30
 * days, and each hour's features, hour of day (24 one-hot) and day of week (7 one-hot), as the
 * article has them. Pure.
 *
 * Counting: an item with a point time (published, or the midpoint of a check interval under an
 * hour) counts 1 in the hour holding it. An item known only by its interval (from, to] is spread
 * uniformly over it: each hour gets the share of the interval it overlaps, so an item between
 * checks 3 h apart adds 1/3 to each of those hours. The counts are then fractional, the total is
 * kept, and a long gap between checks neither invents a burst at its end nor loses its items.
 * Shares falling outside the window are dropped.
 */

export const HOUR = 3_600_000;
export const WINDOW_HOURS = 30 * 24;
export const FEATURES = 24 + 7;

export interface HourCount {
  /** the hour's start, epoch ms (aligned to the hour in the given zone offset) */
  start: number;
  /** new items in [start, start + 1 h), fractional when items are spread */
  count: number;
}

/** Zone offset in minutes east of UTC (+60 for CET): local = UTC + offset. */
export type Offset = number;

/** Start of the hour holding `t`, in a zone `offset` minutes east of UTC (matters for +05:30). */
export function hourStart(t: number, offset: Offset = 0): number {
  const off = offset * 60_000;
  return Math.floor((t + off) / HOUR) * HOUR - off;
}

/**
 * New items per hour over the `hours` hours ending at the hour holding `end` (exclusive: the
 * current, unfinished hour is not a row). Rows oldest first, `hours` of them.
 */
export function hourlyCounts(items: readonly Pick<Appearance, 'from' | 'to' | 'point'>[], end: number, hours = WINDOW_HOURS, offset: Offset = 0): HourCount[] {
  const last = hourStart(end, offset);
  const first = last - hours * HOUR;
  const rows: HourCount[] = Array.from({ length: hours }, (_, i) => ({ start: first + i * HOUR, count: 0 }));
  const add = (i: number, v: number): void => {
    if (i >= 0 && i < hours) rows[i]!.count += v;
  };
  for (const it of items) {
    if (it.point !== null) {
      add(Math.floor((it.point - first) / HOUR), 1);
      continue;
    }
    const span = it.to - it.from;
    if (!(span > 0)) continue;
    const lo = Math.max(it.from, first);
    const hi = Math.min(it.to, last);
    if (lo >= hi) continue; // wholly outside the window
    for (let i = Math.floor((lo - first) / HOUR); i * HOUR + first < hi; i++) {
      const s = first + i * HOUR;
      add(i, (Math.min(hi, s + HOUR) - Math.max(lo, s)) / span);
    }
  }
  return rows;
}

/** Local hour of day (0–23) and day of week (0 = Sunday … 6) of `t`. */
export function hourAndDay(t: number, offset: Offset = 0): { hour: number; day: number } {
  const d = new Date(t + offset * 60_000);
  return { hour: d.getUTCHours(), day: d.getUTCDay() };
}

/** The features of the hour starting at `t`: positions 0–23 one-hot hour of day, 24–30 one-hot day of week (24 = Sunday). */
export function encodeHour(t: number, offset: Offset = 0): number[] {
  const { hour, day } = hourAndDay(t, offset);
  const x = new Array<number>(FEATURES).fill(0);
  x[hour] = 1;
  x[24 + day] = 1;
  return x;
}
