/**
 * The article's hierarchical map: a breadth-first spanning tree from the start page (pure).
 * Layer d holds the pages first reached in d hops. A page of layer d+1 linked from several pages
 * of layer d hangs under the one of highest PageRank; equal ranks go to the lowest page id (the
 * earliest discovered), so the same graph always gives the same tree.
 */
export interface SpanningTree {
  root: number;
  /** every page reached, with its parent (the root's is null) */
  parent: Map<number, number | null>;
  depth: Map<number, number>;
  /** children of each page in ascending id order */
  children: Map<number, number[]>;
  /** pages of the graph the start page does not reach, ascending */
  unreached: number[];
}

export function spanningTree(
  root: number,
  ids: readonly number[],
  edges: readonly { src: number; dst: number }[],
  rank: ReadonlyMap<number, number>,
): SpanningTree {
  const out = new Map<number, number[]>();
  for (const e of edges) {
    let l = out.get(e.src);
    if (!l) out.set(e.src, (l = []));
    l.push(e.dst);
  }
  const r = (id: number) => rank.get(id) ?? 0;
  const parent = new Map<number, number | null>([[root, null]]);
  const depth = new Map<number, number>([[root, 0]]);
  const children = new Map<number, number[]>();
  let layer = [root];
  for (let d = 1; layer.length > 0; d++) {
    // Every link from this layer to a page not yet placed competes for that page.
    const best = new Map<number, number>();
    for (const u of layer) {
      for (const v of out.get(u) ?? []) {
        if (parent.has(v)) continue;
        const cur = best.get(v);
        if (cur === undefined || r(u) > r(cur) || (r(u) === r(cur) && u < cur)) best.set(v, u);
      }
    }
    layer = [...best.keys()].sort((a, b) => a - b);
    for (const v of layer) {
      const p = best.get(v)!;
      parent.set(v, p);
      depth.set(v, d);
      let c = children.get(p);
      if (!c) children.set(p, (c = []));
      c.push(v);
    }
  }
  const unreached = ids.filter((id) => !parent.has(id)).sort((a, b) => a - b);
  return { root, parent, depth, children, unreached };
}
