import { createRequire } from 'node:module';
import type { DirectedGraph } from 'graphology';

type PagerankOptions = { alpha: number; getEdgeWeight: null; maxIterations: number; tolerance: number };
// A CommonJS module whose typings declare an ES default export that NodeNext cannot call: require
// gives the function itself (typed here by what we use of it).
// Both are loaded on first use: only `map` ranks pages, and every other command (a crawl) starts
// without their modules.
const require = createRequire(import.meta.url);
const graphology = (): { DirectedGraph: typeof DirectedGraph } => require('graphology') as { DirectedGraph: typeof DirectedGraph };
const pagerank = (g: DirectedGraph, o: PagerankOptions): Record<string, number> =>
  (require('graphology-metrics/centrality/pagerank') as (g: DirectedGraph, o: PagerankOptions) => Record<string, number>)(g, o);

/** The article's damping factor. */
export const DAMPING = 0.85;

/**
 * PageRank of every page of a link graph (pure), by graphology-metrics, in the article's
 * unnormalized form: PR(p) = (1−k) + k·Σ PR(q)/out(q), whose values sum to N (one per page on
 * average), so a rank reads the same whatever the site's size. graphology computes the
 * normalized form (summing to 1); beebot reports it × N. A page without out-links (an unfetched
 * page, a file, an error) hands its rank to every page evenly, as graphology does: without that
 * the article's sum leaks. On a graph where every page links somewhere both forms agree exactly.
 * Self-links are left out: a page does not vote for itself.
 */
export function pageRank(ids: readonly number[], edges: readonly { src: number; dst: number }[], k = DAMPING): Map<number, number> {
  const out = new Map<number, number>();
  const n = ids.length;
  if (n === 0) return out;
  const g = new (graphology().DirectedGraph)({ allowSelfLoops: false });
  for (const id of ids) g.addNode(String(id));
  for (const e of edges) {
    if (e.src === e.dst || !g.hasNode(String(e.src)) || !g.hasNode(String(e.dst))) continue;
    g.mergeEdge(String(e.src), String(e.dst));
  }
  // Tight tolerance: ranks break ties between parents (map), so they must not be rounding noise.
  const pr = pagerank(g, { alpha: k, getEdgeWeight: null, maxIterations: 1000, tolerance: 1e-12 });
  for (const id of ids) out.set(id, pr[String(id)]! * n);
  return out;
}
