/**
 * The article's measures of a watch run, over the checks a schedule made and the new
 * items it found: cost (fetches), hit rate (share of checks that found at least one new item),
 * mean delay (found − appeared, over the items found), and one weighted score to rank
 * schedules. Pure arithmetic.
 */

export interface CheckResult {
  /** when the hub was fetched (epoch ms) */
  at: number;
  /** new items the fetch found */
  found: number;
}

export interface FoundItem {
  /** when the item appeared (the changing web's truth, or appearance.ts's estimate) */
  appeared: number;
  /** the check that found it */
  found: number;
}

export interface RunMetrics {
  /** fetches */
  cost: number;
  /** checks that found ≥ 1 new item */
  hits: number;
  /** hits / cost; 0 for a run without checks */
  hitRate: number;
  items: number;
  /** mean of found − appeared over the items found (ms); null when none was found */
  meanDelay: number | null;
}

export function runMetrics(checks: readonly CheckResult[], items: readonly FoundItem[]): RunMetrics {
  const cost = checks.length;
  const hits = checks.filter((c) => c.found > 0).length;
  let delay = 0;
  for (const it of items) delay += it.found - it.appeared;
  return { cost, hits, hitRate: cost === 0 ? 0 : hits / cost, items: items.length, meanDelay: items.length === 0 ? null : delay / items.length };
}

export interface ScoreWeights {
  cost: number;
  hitRate: number;
  delay: number;
}

/** Equal weights, as the three measures are reported side by side. */
export const EQUAL_WEIGHTS: ScoreWeights = { cost: 1, hitRate: 1, delay: 1 };

/**
 * A run's weighted score against reference runs (the fixed intervals of the same period). The
 * article ranks schedules by a weighted score but its formula is not restated; this is ours.
 * Each measure is placed on the references' range, 0 at the worst reference and 1 at the best
 * (lower cost, higher hit rate, lower delay are better):
 *   cost'  = (max cost − cost) / (max cost − min cost)
 *   hit'   = (hit rate − min hit rate) / (max hit rate − min hit rate)
 *   delay' = (max delay − delay) / (max delay − min delay)
 * and the score is their weighted mean. A run better than every reference scores above 1 on
 * that measure, a worse one below 0 (not clamped, so being outside the range shows). When the
 * references do not differ on a measure it counts 1 if the run is at least as good, else 0. A
 * run that found no item (delay null) gets delay' = 0; references without items are left out
 * of the delay range.
 */
export function weightedScore(run: RunMetrics, references: readonly RunMetrics[], weights: ScoreWeights = EQUAL_WEIGHTS): number {
  if (references.length === 0) throw new RangeError('weightedScore needs reference runs');
  const total = weights.cost + weights.hitRate + weights.delay;
  if (!(total > 0)) throw new RangeError('the weights must sum to more than 0');
  const cost = place(run.cost, references.map((r) => r.cost), false);
  const hit = place(run.hitRate, references.map((r) => r.hitRate), true);
  const delays = references.map((r) => r.meanDelay).filter((d): d is number => d !== null);
  const delay = run.meanDelay === null || delays.length === 0 ? 0 : place(run.meanDelay, delays, false);
  return (weights.cost * cost + weights.hitRate * hit + weights.delay * delay) / total;
}

/** Where v lies from the worst to the best of refs (0 … 1); `higher`: whether more is better. */
function place(v: number, refs: readonly number[], higher: boolean): number {
  const lo = Math.min(...refs);
  const hi = Math.max(...refs);
  if (hi === lo) return (higher ? v >= hi : v <= lo) ? 1 : 0;
  return higher ? (v - lo) / (hi - lo) : (hi - v) / (hi - lo);
}

/**
 * Relative change of each measure against a reference run, as the article reports it
 * (hit rate 43 % → 63 % is +0.46, cost 2,160 → 1,701 is −0.21); null where the reference's is 0 or null.
 */
export function relativeChange(run: RunMetrics, ref: RunMetrics): { cost: number | null; hitRate: number | null; meanDelay: number | null } {
  const rel = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 ? null : (a - b) / b);
  return { cost: rel(run.cost, ref.cost), hitRate: rel(run.hitRate, ref.hitRate), meanDelay: rel(run.meanDelay, ref.meanDelay) };
}
