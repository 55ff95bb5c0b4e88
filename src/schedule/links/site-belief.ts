/**
 * What the crawl believes of a site's yield (new external URLs per page), not a point estimate.
 * A page's yield is heavy-tailed: most pages bring 0-5 new links, a few (hubs) bring 30 to 3,000.
 * So a site's next page is believed to be a hub with a chance, or else to bring the site's small
 * yield, and the two are learned apart (tailYield): how many hubs a site has shown moves its
 * chance of the next one, slowly, but not how big they were (a hub's links are new once; a hub of
 * 1,700 says no more of the next page than a hub of 40), and its other pages make a Gamma-Poisson
 * posterior whose prior is the crawl's own mean over its sites (empirical Bayes), worth
 * PRIOR_PAGES pages. Two quiet pages then hardly lower the chance of a hub, and one hub does not
 * hold a site up for long, while a site that shows nothing after its start is believed dead, a
 * little more with each of its quiet pages. The value order scales every link's cue lift by the
 * site's worth now (its last RECENT pages, each part with OPTIMISM posterior deviations: an upper
 * confidence bound), so the pages scheduler compares sites by what they give now. Pure.
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

/** A page that brings HUB new external URLs or more is a hub. */
export const HUB = 30;

/**
 * Pages of evidence the crawl's share of hubs weighs in a site's chance of one: under a heavy
 * tail a page tells little of the next, so a site's own count takes many pages to outweigh it.
 */
export const HUB_PRIOR_PAGES = 10;

/**
 * Whether a site that has shown no new external URL since its start is live: LIVE of the sites
 * are before any page, and a live site's page brings none with the chance the crawl's live sites
 * show (CrawlTail.quiet: two thirds of the replay web's pages).
 */
export const LIVE = 0.8;

/** A site's recent pages (after its start): how many, the hubs among them, the new external URLs of the others, and whether any page since its start brought one. */
export interface TailEvidence {
  n: number;
  hubs: number;
  small: number;
  seen: boolean;
}

/**
 * What the crawl has seen: the mean yield of a page that is not a hub (each site one vote), the
 * share of hubs among its pages, a hub's typical size (the geometric mean: one hub of 3,000 does
 * not make the typical one), and the share of pages without a new external URL on the sites that
 * have shown one.
 */
export interface CrawlTail {
  smallMean: number;
  hubRate: number;
  hubSize: number;
  quiet: number;
}

/**
 * The optimistic worth of a site's next page: a hub with a chance that starts at the crawl's
 * share of hubs and moves with the site's own (a Beta posterior worth HUB_PRIOR_PAGES, plus
 * OPTIMISM deviations), worth the crawl's typical hub; else the site's small yield (optimisticYield
 * over its other pages). A site that has shown nothing since its start weighs that by how much
 * likelier than a site not yet read it is to be live (1 before its first quiet page; where two
 * thirds of the live sites' pages are quiet, 0.68 after three, 0.43 after five, 0.08 after ten).
 */
export function tailYield(e: TailEvidence, c: CrawlTail): number {
  const quiet = c.quiet ** e.n;
  const live = e.seen ? 1 : quiet / (LIVE * quiet + 1 - LIVE);
  const small = optimisticYield({ n: e.n - e.hubs, sum: e.small }, c.smallMean);
  const rate = (e.hubs + HUB_PRIOR_PAGES * c.hubRate) / (e.n + HUB_PRIOR_PAGES);
  const hub = Math.min(1, rate + OPTIMISM * Math.sqrt((rate * (1 - rate)) / (e.n + HUB_PRIOR_PAGES + 1)));
  return live * ((1 - hub) * small + hub * c.hubSize);
}
