/**
 * A page's change rate from its check history (pure): Cho & Garcia-Molina, "Estimating Frequency
 * of Change" (ACM TOIT 2003), the estimator for irregular check intervals. A check after an
 * interval t that found the page changed says "at least one change in t" (probability
 * 1 − e^(−λt)); one that found it the same says "none in t" (e^(−λt)). The maximum-likelihood λ
 * solves Σ_changed t / (e^(λt) − 1) = Σ_same t.
 *
 * Alone it gives 0 for a page never seen changing (and ∞ for one always seen changing), and a
 * rate of 0 is never checked again. So the history is read with a prior, as pseudo-counts: one
 * interval of `priorMs` that found a change and one that did not (the "+0.5" of the article's
 * estimator for regular checks, given as observations). With no history at all that is
 * λ = ln 2 / priorMs; every rate is finite and above 0.
 */

/** One interval of a page's history: its length (ms) and whether the check closing it found a change. */
export interface Observation {
  ms: number;
  changed: boolean;
}

/**
 * The change rate (changes per ms) of a page with these observations, under the prior. Intervals
 * of no length carry no information and are skipped.
 */
export function changeRate(history: readonly Observation[], priorMs: number): number {
  if (!(priorMs > 0)) throw new RangeError(`the prior interval must be positive (${priorMs})`);
  const obs = [...history.filter((o) => o.ms > 0), { ms: priorMs, changed: true }, { ms: priorMs, changed: false }];
  const same = obs.reduce((s, o) => s + (o.changed ? 0 : o.ms), 0);
  const changed = obs.filter((o) => o.changed).map((o) => o.ms);
  // Σ t / (e^(λt) − 1) falls from +∞ to 0 as λ grows: bisection on log λ.
  const excess = (lambda: number) => changed.reduce((s, t) => s + t / Math.expm1(lambda * t), 0) - same;
  const shortest = Math.min(...obs.map((o) => o.ms));
  let lo = 1e-9 / Math.max(...obs.map((o) => o.ms));
  let hi = 50 / shortest;
  while (excess(lo) < 0) lo /= 2;
  while (excess(hi) > 0) hi *= 2;
  for (let i = 0; i < 100 && hi / lo > 1 + 1e-12; i++) {
    const mid = Math.sqrt(lo * hi);
    if (excess(mid) > 0) lo = mid;
    else hi = mid;
  }
  return Math.sqrt(lo * hi);
}

/**
 * A page's observations from its reads and checks (epoch ms, any order): each check closes the
 * interval since the page was last read or checked. A read (the crawl's fetch) starts a history
 * and tells nothing of change; a check with nothing before it neither.
 */
export function observations(reads: readonly number[], checks: readonly { at: number; changed: boolean }[]): Observation[] {
  const events = [...reads.map((at) => ({ at, changed: null as boolean | null })), ...checks].sort((a, b) => a.at - b.at);
  const out: Observation[] = [];
  let prev: number | null = null;
  for (const e of events) {
    if (e.changed !== null && prev !== null) out.push({ ms: e.at - prev, changed: e.changed });
    prev = e.at;
  }
  return out;
}

/**
 * The prior's interval: the mean interval of all pages' observations (how often pages of this
 * refresh are checked), else `fallbackMs`. Shared by every page, so a page with no history is
 * weighed on the same scale as the others and its priority grows with its wait like theirs.
 */
export function priorInterval(histories: readonly (readonly Observation[])[], fallbackMs: number): number {
  let n = 0;
  let sum = 0;
  for (const h of histories) for (const o of h) if (o.ms > 0) {
    n++;
    sum += o.ms;
  }
  return n > 0 ? sum / n : fallbackMs;
}
