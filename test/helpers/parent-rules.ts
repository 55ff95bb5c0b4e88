// The article's map rules, checked independently of src/map (used on generated graphs and on a
// crawled site). The article (../shared/paper.md §5) states them in prose; numbered here:
// P1 every page the start page reaches appears exactly once, and no other page does;
// P2 the root is the start page and each page's depth is its breadth-first distance from it;
// P3 a page's parent links to it (so the parent is in the layer just above);
// P4 of the pages in that layer linking to it, the parent has the highest PageRank; equal ranks
//    go to the lowest page id.
export interface TreeNode {
  id: number;
  depth: number;
  rank: number;
  children: TreeNode[];
}

export function distances(start: number, edges: readonly { src: number; dst: number }[]): Map<number, number> {
  const out = new Map<number, number[]>();
  for (const e of edges) out.set(e.src, [...(out.get(e.src) ?? []), e.dst]);
  const dist = new Map([[start, 0]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i]!;
    for (const v of out.get(u) ?? []) {
      if (dist.has(v)) continue;
      dist.set(v, dist.get(u)! + 1);
      queue.push(v);
    }
  }
  return dist;
}

/** Every broken rule, as a readable line; [] when the tree is the article's map. */
export function parentRuleViolations(root: TreeNode, start: number, edges: readonly { src: number; dst: number }[], rank: ReadonlyMap<number, number>): string[] {
  const bad: string[] = [];
  const dist = distances(start, edges);
  const has = new Set(edges.map((e) => `${e.src} ${e.dst}`));
  const seen = new Map<number, number>();
  const parent = new Map<number, number | null>();
  const walk: [TreeNode, number | null][] = [[root, null]];
  while (walk.length) {
    const [n, p] = walk.pop()!;
    seen.set(n.id, (seen.get(n.id) ?? 0) + 1);
    parent.set(n.id, p);
    for (const c of n.children) walk.push([c, n.id]);
    if (dist.get(n.id) !== n.depth) bad.push(`P2: page ${n.id} at depth ${n.depth}, distance ${dist.get(n.id)}`);
  }
  if (root.id !== start) bad.push(`P2: root ${root.id} is not the start page ${start}`);
  for (const [id, k] of seen) if (k !== 1) bad.push(`P1: page ${id} appears ${k} times`);
  for (const id of dist.keys()) if (!seen.has(id)) bad.push(`P1: page ${id} is reachable but missing`);
  for (const id of seen.keys()) if (!dist.has(id)) bad.push(`P1: page ${id} is in the tree but not reachable`);
  for (const [id, p] of parent) {
    if (p === null) continue;
    if (!has.has(`${p} ${id}`)) bad.push(`P3: parent ${p} does not link ${id}`);
    const layer = dist.get(id)! - 1;
    const rivals = edges.filter((e) => e.dst === id && e.src !== id && dist.get(e.src) === layer).map((e) => e.src);
    for (const q of rivals) {
      const rp = rank.get(p)!;
      const rq = rank.get(q)!;
      if (rq > rp || (rq === rp && q < p)) bad.push(`P4: page ${id} hangs under ${p} (rank ${rp}) but ${q} (rank ${rq}) links it from the same layer`);
    }
  }
  return bad;
}

/** The article's PageRank, by plain power iteration (independent of graphology): sums to N. */
export function powerIteration(ids: readonly number[], edges: readonly { src: number; dst: number }[], k = 0.85): Map<number, number> {
  const n = ids.length;
  const outs = new Map<number, Set<number>>(ids.map((id) => [id, new Set<number>()]));
  for (const e of edges) if (e.src !== e.dst && outs.has(e.dst)) outs.get(e.src)?.add(e.dst);
  let pr = new Map(ids.map((id) => [id, 1]));
  for (let it = 0; it < 2000; it++) {
    // A page without links shares its rank among all pages (else the sum would leak).
    let dangling = 0;
    for (const id of ids) if (outs.get(id)!.size === 0) dangling += pr.get(id)!;
    const next = new Map(ids.map((id) => [id, 1 - k + (k * dangling) / n]));
    for (const [q, to] of outs) for (const p of to) next.set(p, next.get(p)! + (k * pr.get(q)!) / to.size);
    pr = next;
  }
  return pr;
}

/** A node of `beebot map`'s JSON, as far as the rules read it. */
export interface MapJsonNode {
  id: number;
  depth: number;
  rank: number;
  children: MapJsonNode[];
}

/** The tree the rules check, and each page's PageRank, from `beebot map`'s JSON. */
export function fromMapJson(root: MapJsonNode): { tree: TreeNode; ranks: Map<number, number> } {
  const ranks = new Map<number, number>();
  const tree = (p: MapJsonNode): TreeNode => {
    ranks.set(p.id, p.rank);
    return { id: p.id, depth: p.depth, rank: p.rank, children: p.children.map(tree) };
  };
  return { tree: tree(root), ranks };
}
