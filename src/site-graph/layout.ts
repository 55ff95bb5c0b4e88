import { createRequire } from 'node:module';
import type { DirectedGraph } from 'graphology';
import type { ForceAtlas2Settings } from 'graphology-layout-forceatlas2';

// CommonJS modules whose typings declare ES defaults that NodeNext cannot call; loaded on first
// use so that commands without a picture (a crawl) start without them.
const require = createRequire(import.meta.url);
type Fa2 = ((g: DirectedGraph, o: { iterations: number; settings: ForceAtlas2Settings; getEdgeWeight: string }) => Record<string, { x: number; y: number }>) & {
  inferSettings(order: number): ForceAtlas2Settings;
};
const graphology = () => require('graphology') as { DirectedGraph: typeof DirectedGraph };
const forceAtlas2 = () => require('graphology-layout-forceatlas2') as Fa2;

export interface Placed {
  x: number;
  y: number;
}

/** FNV-1a of a string: a start position that depends on the node's name only, not on read order. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Fewer iterations on large graphs: Barnes-Hut steps cost more, and hosts settle around their sites early. */
export const iterationsFor = (order: number): number => (order <= 500 ? 500 : order <= 2000 ? 250 : 120);

/**
 * A ForceAtlas2 layout (Gephi's default), deterministic: each node starts at a point derived from
 * a hash of its id and the iterations are fixed, so the same graph gives the same picture on every
 * run. Edge weights pull by log(1 + weight): one site linking a host a thousand times would
 * otherwise collapse it onto the site. Positions rounded to 0.01 (exports stay small and equal).
 */
export function layOut(nodes: readonly string[], edges: readonly { source: string; target: string; weight: number }[]): Map<string, Placed> {
  const g = new (graphology().DirectedGraph)({ allowSelfLoops: false });
  const spread = 10 * Math.sqrt(nodes.length + 1);
  for (const id of nodes) {
    const h = hash(id);
    const angle = ((h & 0xffff) / 0x10000) * 2 * Math.PI;
    const r = spread * Math.sqrt(((h >>> 16) + 1) / 0x10000);
    g.addNode(id, { x: r * Math.cos(angle), y: r * Math.sin(angle) });
  }
  for (const e of edges) if (e.source !== e.target && g.hasNode(e.source) && g.hasNode(e.target)) g.mergeEdge(e.source, e.target, { w: Math.log1p(e.weight) });
  const fa2 = forceAtlas2();
  const settings = { ...fa2.inferSettings(g.order), outboundAttractionDistribution: true };
  const at = g.order > 1 ? fa2(g, { iterations: iterationsFor(g.order), settings, getEdgeWeight: 'w' }) : {};
  const round = (v: number) => Math.round(v * 100) / 100;
  return new Map(nodes.map((id) => {
    const p = at[id] ?? (g.getNodeAttributes(id) as Placed);
    return [id, { x: round(p.x), y: round(p.y) }];
  }));
}
