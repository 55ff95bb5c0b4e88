import { mulberry32 } from '../schedule/sites/random.js';
import type { Policy } from '../schedule/sites/policy.js';
import type { Order } from '../schedule/links/priority.js';
import type { ValueParams } from '../schedule/links/link-value.js';
import { subGraph, type WebGraph } from './web-graph.js';
import type { PageSet } from './references.js';
import { perfectPredictor, references, type References } from './references.js';
import { oracle } from '../schedule/sites/oracle.js';
import { replay } from './replay.js';

/**
 * A way to crawl that may have constants to choose: `tune` sees only training sites (a page graph
 * of them) and returns the constants; `make` builds the scheduler and order from them. A method
 * with no `tune` has nothing chosen on data and is measured on the sites directly.
 */
export interface Method<P = unknown> {
  name: string;
  tune?: (train: WebGraph) => P;
  make: (params: P | undefined) => { policy: Policy; order: Order; value?: ValueParams };
}

/** A method's distinct (site, external URL) pairs on a set of sites at N pages, and the references' on the same sites. */
export interface Measured {
  pairs: number;
  bfsOracle: number;
  perfectPredictor: number;
  /** where the budget went, by site (index in the graph): the method's pulls and pairs, and the perfect-predictor's */
  sites: Map<number, SiteSplit>;
}

export interface SiteSplit {
  pulls: number;
  pairs: number;
  ppPages: number;
  ppPairs: number;
  /** with `orders`: the site replayed alone for as many pulls, in the method's own order and breadth-first */
  alone?: number;
  bfs?: number;
}

/** The references of some sites at n pages, and the perfect-predictor's pages and pairs by site (in `sites` order). */
export interface SplitReferences extends References {
  ppSplit: { pages: number; pairs: number }[];
}

/** The references of some sites at n pages, worked out once per page sets (they cost more than a replay at large N). */
const refCache = new WeakMap<readonly PageSet[], Map<string, SplitReferences>>();
export function cachedReferences(sets: readonly PageSet[], sites: readonly number[], n: number): SplitReferences {
  let m = refCache.get(sets);
  if (!m) refCache.set(sets, (m = new Map()));
  const key = `${sites.join(',')}/${n}`;
  let r = m.get(key);
  if (!r) {
    const chosen = sites.map((i) => sets[i]!);
    const seqs = chosen.map((s) => perfectPredictor(s, n));
    const { allocation } = oracle(seqs, n);
    const ppSplit = allocation.map((pages, j) => ({ pages, pairs: seqs[j]!.slice(0, pages).reduce((a, x) => a + x, 0) }));
    m.set(key, (r = { ...references(chosen, [n]).get(n)!, ppSplit }));
  }
  return r;
}

/** A seeded shuffle (Fisher-Yates over mulberry32): the same seed, the same order. */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const a = [...xs];
  const r = mulberry32(seed);
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** k folds of the site indices (seeded), each a held-out set; every site in exactly one. */
export function folds(n: number, k: number, seed: number): number[][] {
  const order = shuffled(Array.from({ length: n }, (_, i) => i), seed);
  const out: number[][] = Array.from({ length: Math.min(k, n) }, () => []);
  order.forEach((site, i) => out[i % out.length]!.push(site));
  return out.map((f) => f.sort((a, b) => a - b));
}

/** `count` random subsets of `size` site indices out of n (seeded). */
export function subsets(n: number, size: number, count: number, seed: number): number[][] {
  return Array.from({ length: count }, (_, i) => shuffled(Array.from({ length: n }, (_, j) => j), seed + i).slice(0, size).sort((a, b) => a - b));
}

/**
 * A method on the sites `keep` of the graph at N pages. Untuned: one crawl of those sites. Tuned:
 * leave-sites-out: the sites are split into `k` folds; for each, the constants are chosen on the
 * other sites of the graph (never on the fold's), and the fold's sites are crawled with its share
 * of the budget (N · fold size / sites); the figures and the references are summed over the folds,
 * so no site is measured with constants chosen on it.
 */
export function measure<P>(
  m: Method<P>, web: WebGraph, sets: readonly PageSet[], keep: readonly number[], N: number, o: { k?: number; seed?: number; orders?: boolean } = {},
): Measured {
  const run = (sites: readonly number[], n: number, params: P | undefined): Measured => {
    const g = subGraph(web, (_, i) => sites.includes(i));
    const { policy, order, value } = m.make(params);
    const r = replay(g, { policy, order, value, budget: n, seed: 1 });
    const refs = cachedReferences(sets, sites, n);
    const split = new Map(sites.map((i, j) => [i, { pulls: 0, pairs: 0, ppPages: refs.ppSplit[j]!.pages, ppPairs: refs.ppSplit[j]!.pairs }]));
    for (const p of r.pulls) {
      const x = split.get(sites[p.site - 1]!)!;
      x.pulls++;
      x.pairs += p.urls;
    }
    if (o.orders) for (const [i, x] of split) Object.assign(x, atEqualPages(m.make(params), web, i, x.pulls));
    return { pairs: r.pairs.at(-1) ?? 0, bfsOracle: refs.bfsOracle, perfectPredictor: refs.perfectPredictor, sites: split };
  };
  if (!m.tune) return run(keep, N, undefined);
  const total: Measured = { pairs: 0, bfsOracle: 0, perfectPredictor: 0, sites: new Map() };
  for (const { held, n, params } of foldsOf(m, web, keep, N, o)) {
    const got = run(held, n, params);
    total.pairs += got.pairs;
    total.bfsOracle += got.bfsOracle;
    total.perfectPredictor += got.perfectPredictor;
    for (const [i, x] of got.sites) total.sites.set(i, x);
  }
  return total;
}

/**
 * The order inside one site against breadth-first at equal pages: the site replayed alone for
 * `pulls` pulls in the method's order (with its constants) and breadth-first, its pairs in each.
 */
export function atEqualPages(made: ReturnType<Method['make']>, web: WebGraph, site: number, pulls: number): { alone: number; bfs: number } {
  if (pulls === 0) return { alone: 0, bfs: 0 };
  const g = subGraph(web, (_, k) => k === site);
  const alone = replay(g, { ...made, budget: pulls, seed: 1 }).pairs.at(-1) ?? 0;
  const bfs = replay(g, { policy: made.policy, order: 'bfs', budget: pulls, seed: 1 }).pairs.at(-1) ?? 0;
  return { alone, bfs };
}

/**
 * A tuned method's folds: each fold's sites, its share of N, and the constants chosen on the
 * graph's other sites (never on the fold's).
 */
function* foldsOf<P>(m: Method<P>, web: WebGraph, keep: readonly number[], N: number, o: { k?: number; seed?: number }) {
  for (const f of folds(keep.length, o.k ?? 5, o.seed ?? 1)) {
    const held = f.map((i) => keep[i]!);
    yield { held, n: Math.max(1, Math.round((N * held.length) / keep.length)), params: m.tune!(subGraph(web, (_, i) => !held.includes(i))) };
  }
}

/**
 * The most a scheduler over sites could reach with a method's order, knowing where each site
 * pays: the best split of N pages over the sites `keep` given that order inside each site (each
 * site replayed alone, with the constants chosen as measure() chooses them, fold by fold), and
 * that split, by site (index in the graph). When this is far above the method's figure the
 * budget went to the wrong sites; when it is near or under a target, no scheduler over sites
 * reaches the target with that order: the order inside the sites must find the links sooner.
 * Alone, a site does not learn from the others' pulls (the cue model's crawl-wide counts), so
 * this is a close estimate, not an exact bound.
 */
export function ownOrderOracle<P>(
  m: Method<P>, web: WebGraph, keep: readonly number[], N: number, o: { k?: number; seed?: number } = {},
): { pairs: number; pages: Map<number, number> } {
  const out = { pairs: 0, pages: new Map<number, number>() };
  const run = (sites: readonly number[], n: number, params: P | undefined) => {
    const curves = sites.map((i) => {
      const { policy, order, value } = m.make(params);
      return replay(subGraph(web, (_, k) => k === i), { policy, order, value, budget: n, seed: 1 }).pulls.map((p) => p.urls);
    });
    const best = oracle(curves, n);
    out.pairs += best.total;
    sites.forEach((i, j) => out.pages.set(i, best.allocation[j]!));
  };
  if (!m.tune) run(keep, N, undefined);
  else for (const { held, n, params } of foldsOf(m, web, keep, N, o)) run(held, n, params);
  return out;
}
