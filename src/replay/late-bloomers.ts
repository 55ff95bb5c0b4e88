import { reroot, walk } from './shifted-starts.js';
import { contentOf, type SiteGraph, type WebGraph } from './web-graph.js';

/**
 * Sites that start quiet, to judge a scheduler on what a few quiet pages tell: on real sites a
 * page's yield is heavy-tailed, and the pages after a site's start may bring next to nothing
 * while its hubs come a few pages later. Each site is seeded instead at its first page (in the
 * graph's breadth-first order) from which the QUIET_PAGES pages read next breadth-first bring
 * at most QUIET new external URLs each, and one of the pages up to HUB_BY brings HUB or more;
 * levels are counted again from there (shifted-starts.ts reroot). A site with no such page is
 * not a late bloomer. Pure.
 */
export const QUIET_PAGES = 3;
export const QUIET = 2;
export const HUB = 30;
export const HUB_BY = 12;

/** What the first `count` pulls read breadth-first from page `start` bring (new external URLs to the site), the start's first. */
export function bfsYields(site: SiteGraph, start: number, maxLevel: number, count: number): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  for (const [i] of walk(site, start, maxLevel)) {
    if (out.length >= count) break;
    if (site.pages[i]!.robots) continue; // robots.txt keeps it out: no pull
    let y = 0;
    for (const u of site.pages[contentOf(site, i)]!.ext) if (!seen.has(u)) (seen.add(u), y++);
    out.push(y);
  }
  return out;
}

/** Whether pulls from a start bring a quiet run and then a hub. */
export const bloomsLate = (ys: readonly number[]): boolean =>
  ys.length > QUIET_PAGES + 1 && ys.slice(1, 1 + QUIET_PAGES).every((y) => y <= QUIET) && Math.max(...ys.slice(1 + QUIET_PAGES)) >= HUB;

/** The index of the site's first HTML page with links from which it blooms late, or -1. */
export function lateStart(site: SiteGraph, maxLevel: number): number {
  return site.pages.findIndex((p, i) => p.status === 'done' && p.target === undefined && !p.robots && p.links.length > QUIET_PAGES && bloomsLate(bfsYields(site, i, maxLevel, HUB_BY + 1)));
}

/** The graph with every late bloomer seeded at its late start, and which sites bloom late (indices). */
export function lateBloomers(web: WebGraph): { web: WebGraph; late: number[] } {
  const late: number[] = [];
  const sites = web.sites.map((s, i) => {
    const start = lateStart(s, web.maxLevel);
    if (start < 0) return s;
    late.push(i);
    return reroot(s, start, web.maxLevel);
  });
  return { web: { ...web, source: `${web.source}; late bloomers seeded at a quiet start`, sites }, late };
}
