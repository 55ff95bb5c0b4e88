import { isIndexed, type PageGraph, type PageNode } from './page-graph.js';

/** A fetched page that answered 4xx/5xx or failed, with the fetched pages that link it. */
export interface InvalidTarget {
  page: PageNode;
  linkedFrom: { page: PageNode; anchor: string }[];
}

const broken = (n: PageNode): boolean => isIndexed(n) && n.status !== 'redirect' && (n.status === 'error' || (n.httpStatus ?? 0) >= 400);

/**
 * The article's invalid links (pure): edges from fetched pages to pages that answered 4xx/5xx or
 * failed. A link to a page that redirects to a broken one counts for the broken one: the user's
 * link is what needs fixing. Targets and their linking pages in page id order.
 */
export function invalidLinks(g: PageGraph): InvalidTarget[] {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const into = new Map<number, { src: number; anchor: string | null }[]>();
  for (const e of g.edges) {
    let l = into.get(e.dst);
    if (!l) into.set(e.dst, (l = []));
    l.push({ src: e.src, anchor: e.anchor });
  }
  const out: InvalidTarget[] = [];
  for (const n of g.nodes) {
    if (!broken(n)) continue;
    const from = new Map<number, string>();
    // Walk back through in-site redirects to the pages whose links lead here.
    const seen = new Set<number>([n.id]);
    const todo = [n.id];
    while (todo.length) {
      for (const e of into.get(todo.pop()!) ?? []) {
        const src = byId.get(e.src);
        if (!src) continue;
        if (src.status === 'done' && e.src !== n.id && !from.has(e.src)) from.set(e.src, e.anchor ?? '');
        if (e.anchor === null && src.status === 'redirect' && !seen.has(e.src)) {
          seen.add(e.src);
          todo.push(e.src);
        }
      }
    }
    if (!from.size) continue;
    out.push({ page: n, linkedFrom: [...from].sort((a, b) => a[0] - b[0]).map(([id, anchor]) => ({ page: byId.get(id)!, anchor })) });
  }
  return out;
}
