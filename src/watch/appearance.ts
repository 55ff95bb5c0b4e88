/**
 * When a new item found on a hub appeared (the article's history). An item first seen
 * at the check at `now` was not there at the hub's previous check at `lastCheck`, so it appeared
 * in (lastCheck, now]. Its page's publication time (published.ts) narrows that to a point, but
 * only when it falls inside the interval: a date before the last check is an old item newly
 * linked (or a date-only stamp at midnight), one after now is a wrong clock; both are ignored
 * and the interval stands. Pure.
 */

/** Below this span between two checks the interval's midpoint stands for the time (the article's rule). */
export const MIDPOINT_SPAN = 3_600_000;

export interface Appearance {
  /** exclusive lower bound: the hub's previous check (epoch ms) */
  from: number;
  /** inclusive upper bound: the check that found the item */
  to: number;
  /**
   * The appearance time when it is known closely enough: the publication time, or the midpoint
   * of (from, to] when that is shorter than MIDPOINT_SPAN. Null otherwise: the item is known
   * only by its interval, and features.ts spreads it over the hours the interval covers.
   */
  point: number | null;
  source: 'published' | 'midpoint' | 'interval';
}

/**
 * The appearance of an item first seen at `now` on a hub last checked at `lastCheck` (< now).
 * Items seen at a hub's first check are not new (they were there before watching began): the
 * caller records no appearance for them.
 */
export function appearance(lastCheck: number, now: number, published: number | null = null): Appearance {
  if (!(lastCheck < now)) throw new RangeError(`the previous check (${lastCheck}) must come before this one (${now})`);
  if (published !== null && published > lastCheck && published <= now) {
    return { from: lastCheck, to: now, point: published, source: 'published' };
  }
  // In whole ms, rounded up so it stays inside (lastCheck, now]: the column holds epoch ms as an
  // integer, and PostgreSQL's BIGINT refuses the half a millisecond SQLite stored as a float.
  if (now - lastCheck < MIDPOINT_SPAN) return { from: lastCheck, to: now, point: lastCheck + Math.ceil((now - lastCheck) / 2), source: 'midpoint' };
  return { from: lastCheck, to: now, point: null, source: 'interval' };
}
