import { checkMs, type CheckCost } from './check-cost.js';
import { changeRate, priorInterval, type Observation } from './change-rate.js';

/**
 * Which pages an iteration checks, under its time budget (pure). `scent` is S.C.E.N.T.; the
 * others are the baselines it is measured against: `uniform` (round robin: the page checked
 * longest ago first), `change-rate` (each page about as often as it is estimated to change), and
 * `optimal`, Cho & Garcia-Molina's freshness-optimal frequencies when the change rates are known
 * (an upper reference only a simulation can run).
 */
export type ScheduleName = 'scent' | 'uniform' | 'change-rate';
export const scheduleNames: readonly ScheduleName[] = ['scent', 'uniform', 'change-rate'];

export interface Candidate {
  id: number;
  /** bytes of its last answer with content; null: never read (a page a refresh found) */
  bytes: number | null;
  scent: number;
  /** when it was last read or checked (ms); null: never */
  last: number | null;
  /** its check history: each re-check's interval since the read or check before, and whether it found a change */
  history: readonly Observation[];
}

export interface Planned {
  id: number;
  estMs: number;
}

export interface PlanOptions {
  budgetMs: number;
  cost: CheckCost;
  now: number;
  /** `optimal` only: each page's check frequency (checks per ms), see optimalFrequencies() */
  frequencies?: ReadonlyMap<number, number>;
}

/**
 * The pages to check, in order: pages never read first (all their content is to gain), then by
 * the schedule's priority; a page is taken when its estimated time still fits the budget (a
 * larger one that does not fit is passed over for smaller ones after it).
 */
export function planIteration(cands: readonly Candidate[], schedule: ScheduleName | 'optimal', o: PlanOptions): Planned[] {
  const read = cands.filter((c) => c.bytes !== null);
  const meanBytes = read.length ? read.reduce((s, c) => s + c.bytes!, 0) / read.length : 0;
  const rank = priority(schedule, o, cands);
  const keys = new Map(cands.map((c) => [c.id, rank(c)]));
  const key = (c: Candidate) => keys.get(c.id)!;
  const order = [...cands].sort((x, y) => Number(y.bytes === null) - Number(x.bytes === null) || key(y) - key(x) || (x.last ?? -Infinity) - (y.last ?? -Infinity) || x.id - y.id);
  const plan: Planned[] = [];
  let spent = 0;
  for (const c of order) {
    const estMs = checkMs(o.cost, c.bytes ?? meanBytes);
    if (spent + estMs > o.budgetMs) continue;
    spent += estMs;
    plan.push({ id: c.id, estMs });
  }
  return plan;
}

/** Higher first; ties go to the page checked longest ago. */
function priority(schedule: ScheduleName | 'optimal', o: PlanOptions, cands: readonly Candidate[]): (c: Candidate) => number {
  const waited = (c: Candidate) => (c.last === null ? Infinity : Math.max(0, o.now - c.last));
  switch (schedule) {
    case 'scent':
      return (c) => c.scent;
    case 'uniform':
      return () => 0;
    case 'change-rate': {
      // visits in proportion to the rate: the expected number of changes since the last check.
      // No rate is 0 (change-rate.ts), so a page's priority grows with its wait and none starves.
      // Expected changes within a factor of RATE_BAND count as equal, so the page checked longest
      // ago goes first: the estimate is not finer than that, and milliseconds of timing noise
      // must not reorder pages of the same history.
      const prior = priorInterval(cands.map((c) => c.history), PRIOR_FALLBACK_MS);
      return (c) => Math.floor(Math.log(changeRate(c.history, prior) * waited(c)) / Math.log(RATE_BAND));
    }
    case 'optimal':
      return (c) => (o.frequencies?.get(c.id) ?? 0) * waited(c);
  }
}

/** Expected numbers of changes closer than this factor are one priority (change-rate). */
const RATE_BAND = 1.25;

/** The prior's interval before any page was re-checked: one day (every page shares it, so only the waits order them). */
const PRIOR_FALLBACK_MS = 86_400_000;

/**
 * Cho & Garcia-Molina's freshness-optimal check frequencies: maximise Σ w·F(λ, f), F(λ, f) =
 * (f/λ)(1 − e^(−λ/f)) the expected freshness of a page changing at rate λ checked every 1/f,
 * under Σ f·c = `share` (the part of the time spent checking). Lagrange: w·∂F/∂f = μ·c, solved for
 * each page by bisection, μ by bisection on the budget. Pages that change too often to keep
 * fresh get no checks at all (their best ∂F/∂f, w/λ, is under μ·c): the article's surprise.
 */
export function optimalFrequencies(pages: readonly { id: number; rate: number; weight: number; costMs: number }[], share: number): Map<number, number> {
  const g = (x: number) => 1 - (1 + x) * Math.exp(-x); // λ·∂F/∂f as a function of x = λ/f, rising 0 → 1
  const freq = (p: (typeof pages)[number], mu: number): number => {
    if (p.rate <= 0 || p.weight <= 0) return 0;
    const y = (mu * p.costMs * p.rate) / p.weight;
    if (y >= 1) return 0;
    let lo = 0, hi = 1;
    while (g(hi) < y) hi *= 2;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (g(mid) < y) lo = mid;
      else hi = mid;
    }
    return p.rate / hi;
  };
  const used = (mu: number) => pages.reduce((s, p) => s + freq(p, mu) * p.costMs, 0);
  let lo = 1e-30, hi = 1;
  while (used(hi) > share && hi < 1e30) hi *= 10;
  for (let i = 0; i < 200 && hi / lo > 1 + 1e-9; i++) {
    const mid = Math.sqrt(lo * hi);
    if (used(mid) > share) lo = mid;
    else hi = mid;
  }
  return new Map(pages.map((p) => [p.id, freq(p, hi)]));
}
