import { argmax, openArms, prefixSum, warmupPick } from './common.js';
import type { Policy } from './policy.js';

/**
 * Exploration per site when the crawl has no budget (N unknown, so round(N/K) is undefined):
 * 200 pages, the article's own round(2000/10). With no budget the crawl runs until every site
 * is exhausted, so this only orders the work: every site's top 200 pages first, then the
 * sites one after another to completion, best first-phase sum first.
 */
export const UNBOUNDED_EXPLORE = 200;

/**
 * R1, the article's trivial rule. Phase 1: the first E pages of every site in turn (id order),
 * E = `explore` or else round(N/K) with K = all sites given (Not Available ones included, so E
 * is fixed for the whole crawl; a site that cannot take its E pages leaves them to phase 2).
 * Phase 2: every remaining page to the open site with the largest reward sum over its first E
 * pages; if that site runs out, the next largest takes over. Ties: lowest id.
 *
 * Stateless: the phase is read off the per-site pull counts, the phase-1 sums off the sites'
 * first E rewards, so a re-created instance continues exactly. In-flight pulls count towards
 * E (they are pulls) but their rewards join the phase-1 sum only once they complete.
 * At concurrency > 1 the crawler closes a site while its page is in flight, so another worker
 * meanwhile takes the next best open site (or the next phase-1 site) rather than waiting.
 * With m = `explore` < N/K this is explore-then-commit. round() is JavaScript's (halves up);
 * N < K/2 gives E = 0: the whole budget goes to the lowest id, as the rule literally says.
 */
export function trivial(explore?: number): Policy {
  return ({ arms, budget }) => {
    const open = openArms(arms);
    if (open.length === 0) return null;
    const e = explore ?? (budget === null ? UNBOUNDED_EXPLORE : Math.round(budget / arms.length));
    return warmupPick(open, e) ?? argmax(open, (a) => prefixSum(a, e));
  };
}
