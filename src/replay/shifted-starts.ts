import type { GraphPage, SiteGraph, WebGraph } from './web-graph.js';

/**
 * The sites of a graph seeded elsewhere, to judge a scheduler under shift: on the replay web every
 * start page carries external links, which users' sites need not do. Each site starts instead at
 * its first page (in the graph's breadth-first order) of level 1 or 2 that is an HTML page of its
 * own with internal links and no external link; levels are counted again from there (a redirect's
 * target at its source's level, as the crawl stores it) and pages past the graph's level cap are
 * left out. A site with no such page keeps its start. Pure.
 */
export function shiftedStarts(web: WebGraph): WebGraph {
  return { ...web, source: `${web.source}; starts moved to a page without external links`, sites: web.sites.map((s) => reroot(s, barrenStart(s), web.maxLevel)) };
}

/** The index of the site's first level 1-2 HTML page with links and no external link, or 0. */
export function barrenStart(site: SiteGraph): number {
  const i = site.pages.findIndex((p, i) => i > 0 && p.level >= 1 && p.level <= 2 && p.status === 'done' && p.target === undefined && !p.robots && p.ext.length === 0 && p.links.length > 0);
  return Math.max(0, i);
}

/**
 * The site's pages breadth-first from page `start`, lazily, each with its level counted from
 * there (a redirect's target at its source's level, as the crawl stores it); pages past
 * `maxLevel` left out.
 */
export function* walk(site: SiteGraph, start: number, maxLevel: number): Generator<[page: number, level: number]> {
  const level = new Map<number, number>([[start, 0]]);
  const order = [start];
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const l = level.get(i)!;
    yield [i, l];
    const p = site.pages[i]!;
    const visit = (j: number, at: number) => {
      if (level.has(j) || at > maxLevel) return;
      level.set(j, at);
      order.push(j);
    };
    if (p.target !== undefined) visit(p.target, l);
    for (const link of p.links) visit(link.to, l + 1);
  }
}

/** The site as seen from page `start`: pages renumbered in breadth-first order from it. */
export function reroot(site: SiteGraph, start: number, maxLevel: number): SiteGraph {
  if (start === 0) return site;
  const level = new Map(walk(site, start, maxLevel));
  const order = [...level.keys()];
  const index = new Map(order.map((old, i) => [old, i]));
  const pages: GraphPage[] = order.map((old) => {
    const p = site.pages[old]!;
    const target = p.target === undefined ? undefined : index.get(p.target);
    const out: GraphPage = { ...p, level: level.get(old)!, links: p.links.filter((l) => index.has(l.to)).map((l) => ({ ...l, to: index.get(l.to)! })) };
    if (target === undefined) delete out.target;
    else out.target = target;
    return out;
  });
  return { ...site, pages };
}
