/** Two sites of the crawl and the number of outside nodes (hosts or domains) both link to. */
export interface CoLink {
  site_a: string;
  site_b: string;
  shared: number;
}

export const colinkColumns = ['site_a', 'site_b', 'shared'] as const;
export const colinkRow = (x: CoLink): unknown[] => colinkColumns.map((c) => x[c]);

/**
 * Co-links: for every pair of sites, the outside nodes both link to (the co-link count of
 * webometrics, which relates sites that never link each other). Links to other sites of the crawl
 * are interlinks, not co-links. Each pair once, site_a before site_b in `sites` order; pairs
 * sharing nothing are left out; most shared first.
 */
export function colinks(edges: Iterable<{ source: string; target: string }>, sites: readonly string[]): CoLink[] {
  const order = new Map(sites.map((s, i) => [s, i]));
  const linkers = new Map<string, Set<number>>();
  for (const e of edges) {
    const from = order.get(e.source);
    if (from === undefined || order.has(e.target)) continue;
    let set = linkers.get(e.target);
    if (!set) linkers.set(e.target, (set = new Set()));
    set.add(from);
  }
  const n = sites.length;
  const shared = new Map<number, number>();
  for (const set of linkers.values()) {
    if (set.size < 2) continue;
    const ids = [...set].sort((a, b) => a - b);
    for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) {
      const k = ids[i]! * n + ids[j]!;
      shared.set(k, (shared.get(k) ?? 0) + 1);
    }
  }
  return [...shared]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .map(([k, count]) => ({ site_a: sites[Math.floor(k / n)]!, site_b: sites[k % n]!, shared: count }));
}
