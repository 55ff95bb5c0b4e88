/** One site of the crawl linking another: the counts of its links to that site. */
export interface Interlink {
  source: string;
  target: string;
  /** distinct URLs of the target site linked from the source site */
  urls: number;
  /** (page, URL) link rows */
  links: number;
  /** distinct pages of the source site carrying them */
  pages: number;
}

export const interlinkColumns = ['source', 'target', 'urls', 'links', 'pages'] as const;
export const interlinkRow = (x: Interlink): unknown[] => interlinkColumns.map((c) => x[c]);

/**
 * The site-to-site links among the site graph's edges (those whose target is a site of the crawl),
 * ordered by source then target as `sites` lists them, so the table reads like the matrix.
 */
export function interlinks(
  edges: Iterable<{ source: string; target: string; urls: number; weight: number; pages: number }>, sites: readonly string[],
): Interlink[] {
  const order = new Map(sites.map((s, i) => [s, i]));
  const out: Interlink[] = [];
  for (const e of edges) {
    if (!order.has(e.target) || e.source === e.target) continue;
    out.push({ source: e.source, target: e.target, urls: e.urls, links: e.weight, pages: e.pages });
  }
  return out.sort((a, b) => order.get(a.source)! - order.get(b.source)! || order.get(a.target)! - order.get(b.target)!);
}

/** The interlinks as a square matrix of distinct URLs: row = linking site, column = linked site, in `sites` order. */
export function interlinkMatrix(links: readonly Interlink[], sites: readonly string[]): number[][] {
  const order = new Map(sites.map((s, i) => [s, i]));
  const m = sites.map(() => sites.map(() => 0));
  for (const x of links) m[order.get(x.source)!]![order.get(x.target)!] = x.urls;
  return m;
}
