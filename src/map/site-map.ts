import { isIndexed, type PageGraph, type PageNode } from './page-graph.js';
import { DAMPING, pageRank } from './pagerank.js';
import { spanningTree } from './spanning-tree.js';

/** What the files a page links weigh, per content type (the article's "gallery at a glance"). */
export interface LinkedType {
  /** the MIME type without parameters; 'unknown' for pages never fetched */
  type: string;
  count: number;
  /** bytes of those whose size is known */
  bytes: number;
}

export interface MapPage {
  id: number;
  url: string;
  title: string | null;
  /** indexed: fetched; registered: linked, not fetched (deeper than max-level, a file, a trap, robots…) */
  kind: 'indexed' | 'registered';
  status: string;
  httpStatus: number | null;
  contentType: string | null;
  bytes: number | null;
  lastModified: string | null;
  /** PageRank in the article's form (sums to the number of pages) */
  rank: number;
  depth: number;
  /** anchor text of the parent's link to this page; null for the root and after a redirect */
  anchor: string | null;
  linked: LinkedType[];
  children: MapPage[];
}

export interface SiteMap {
  start: string;
  damping: number;
  pages: number;
  indexed: number;
  registered: number;
  root: MapPage;
  /** pages of the site that no chain of stored links reaches from the start page */
  unreached: MapPage[];
}

/** The hierarchical map of one site's graph (pure): PageRank, then the spanning tree. */
export function buildSiteMap(g: PageGraph): SiteMap {
  const ids = g.nodes.map((n) => n.id);
  const rank = pageRank(ids, g.edges);
  const tree = spanningTree(g.start, ids, g.edges, rank);
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const anchorOf = new Map<string, string | null>();
  const outOf = new Map<number, number[]>();
  for (const e of g.edges) {
    anchorOf.set(`${e.src} ${e.dst}`, e.anchor);
    if (e.src === e.dst) continue;
    let l = outOf.get(e.src);
    if (!l) outOf.set(e.src, (l = []));
    l.push(e.dst);
  }
  const entry = (id: number, depth: number): MapPage => {
    const n = byId.get(id) ?? missing(id);
    const p = tree.parent.get(id) ?? null;
    return {
      id, url: n.url, title: n.title, kind: isIndexed(n) ? 'indexed' : 'registered', status: n.status, httpStatus: n.httpStatus,
      contentType: n.contentType, bytes: n.bytes, lastModified: n.lastModified, rank: rank.get(id) ?? 0, depth,
      anchor: p === null ? null : (anchorOf.get(`${p} ${id}`) ?? null),
      linked: linkedTypes((outOf.get(id) ?? []).map((d) => byId.get(d)).filter((x): x is PageNode => x !== undefined)),
      children: [],
    };
  };
  // Iterative: a chain of thousands of pages (pagination) must not overflow the stack.
  const root = entry(tree.root, 0);
  const stack: MapPage[] = [root];
  while (stack.length) {
    const m = stack.pop()!;
    for (const c of tree.children.get(m.id) ?? []) {
      const child = entry(c, m.depth + 1);
      m.children.push(child);
      stack.push(child);
    }
  }
  const indexed = g.nodes.filter(isIndexed).length;
  return {
    start: (byId.get(g.start) ?? missing(g.start)).url, damping: DAMPING, pages: g.nodes.length, indexed, registered: g.nodes.length - indexed,
    root, unreached: tree.unreached.map((id) => entry(id, -1)),
  };
}

/** The linked pages grouped by content type, heaviest first (ties by name). */
export function linkedTypes(targets: readonly PageNode[]): LinkedType[] {
  const by = new Map<string, LinkedType>();
  for (const t of targets) {
    const type = t.contentType ? t.contentType.split(';')[0]!.trim().toLowerCase() || 'unknown' : 'unknown';
    let x = by.get(type);
    if (!x) by.set(type, (x = { type, count: 0, bytes: 0 }));
    x.count++;
    x.bytes += t.bytes ?? 0;
  }
  return [...by.values()].sort((a, b) => b.bytes - a.bytes || (a.type < b.type ? -1 : 1));
}

function missing(id: number): never {
  throw new Error(`page ${id} is not in the graph`);
}
