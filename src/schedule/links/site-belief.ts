/**
 * What the crawl believes of a site's yield (new external URLs per page), not a point estimate:
 * a Gamma-Poisson posterior whose prior is the crawl's own mean yield over its sites (empirical
 * Bayes), worth PRIOR_PAGES pages of evidence. A site that has shown nothing is believed to pay
 * as the crawl's sites do; each barren page lowers the belief (as 1 / pages), never to zero at
 * once, so one barren start page lowers a site's share of the budget and does not end it; a site
 * leaves the competition on evidence. The value order scales every link's cue lift by the site's
 * optimistic yield (its posterior mean plus OPTIMISM posterior deviations: an upper confidence
 * bound) over its last RECENT pages, so the pages scheduler compares sites by what they give now,
 * belief and doubt together. Pure.
 */

/** Pages of evidence the crawl's mean weighs in a site's belief: one barren page halves it. */
export const PRIOR_PAGES = 1;

/** Posterior standard deviations added to the believed yield (an upper confidence bound). */
export const OPTIMISM = 1;

/**
 * The pages a site's yield now is read from: its last RECENT (after the start page). A site's yield
 * falls as it is crawled (a hub pays once, its links then repeat), so its mean over all its pages
 * overrates its next one; sw-ucb and rr-ucb read the same window (schedule/sites/registry.ts DEFAULTS.window).
 */
export const RECENT = 50;

/** A site's evidence: pages learned from and their new external URLs. */
export interface Evidence {
  n: number;
  sum: number;
}

/** The posterior mean yield of a site with this evidence, under the crawl's mean `mu`. */
export function believedYield(e: Evidence, mu: number): number {
  return (e.sum + PRIOR_PAGES * mu) / (e.n + PRIOR_PAGES);
}

/** The posterior mean plus OPTIMISM standard deviations (Gamma: shape sum + k·mu, rate n + k). */
export function optimisticYield(e: Evidence, mu: number): number {
  const shape = e.sum + PRIOR_PAGES * mu;
  return (shape + OPTIMISM * Math.sqrt(shape)) / (e.n + PRIOR_PAGES);
}

/**
 * The crawl's mean yield, the prior every site's belief starts from: the mean of the sites' own
 * means (each site one vote, as a site is the unit the user compares), with the offline prior's
 * mean as one more site (before any pull it is all there is).
 */
export function crawlMean(sumOfSiteMeans: number, sitesWithPulls: number, priorMean: number): number {
  return (sumOfSiteMeans + priorMean) / (sitesWithPulls + 1);
}
