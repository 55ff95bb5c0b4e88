import { counted, grouped } from '../../markup/counted.js';

/**
 * Sites the scheduler gave few pages while their frontier still held some: an adaptive crawl
 * spends the budget where the links are, so such a site's counts say where the crawl went, not
 * that the site links to nothing. Named in the crawl's summary, `status` and the report, so that
 * nobody reads its 0 external URLs as a finding. Pure.
 */
export interface SiteCoverage {
  name: string;
  fetched: number;
  /** queued pages up to max-level */
  frontier: number;
  /** still crawlable: not capped, not unavailable */
  open: boolean;
}

/** A site is barely crawled below this share of the pages an even split would have given it. */
export const BARELY_SHARE = 0.1;

export function barelyCrawled<T extends SiteCoverage>(sites: readonly T[]): T[] {
  const fetched = sites.reduce((a, s) => a + s.fetched, 0);
  const even = fetched / Math.max(1, sites.length);
  return sites.filter((s) => s.open && s.frontier > 0 && s.fetched < BARELY_SHARE * even);
}

/** What crawls every site evenly under this scheduler: the pages scheduler splits evenly without values, the others with round-robin. */
export const evenHint = (policy: string): string => (policy === 'pages' ? '--order bfs' : '--policy round-robin');

/** `pg: 1 page, 340 queued: the scheduler found better pages elsewhere; --order bfs crawls every site evenly` */
export function barelyCrawledLine(s: SiteCoverage, policy: string): string {
  return `${s.name}: ${counted(s.fetched, 'page')}, ${grouped(s.frontier)} queued: the scheduler found better pages elsewhere; ${evenHint(policy)} crawls every site evenly`;
}

/**
 * The lines naming the barely crawled sites, at most `shown`: past it one line counts them all and
 * names the command that lists them (a study of thousands of sites keeps a screen-long summary).
 */
export function barelyCrawledLines(barely: readonly SiteCoverage[], policy: string, shown = Infinity): string[] {
  if (barely.length <= shown) return barely.map((s) => barelyCrawledLine(s, policy));
  const queued = barely.reduce((a, s) => a + s.frontier, 0);
  return [
    `${counted(barely.length, 'site')} barely crawled (${counted(barely.reduce((a, s) => a + s.fetched, 0), 'page')} fetched, ${grouped(queued)} queued among them): the scheduler found better pages elsewhere; ${evenHint(policy)} crawls every site evenly; beebot status lists them`,
  ];
}
