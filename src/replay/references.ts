import { oracleCurve } from '../schedule/sites/oracle.js';
import type { Policy } from '../schedule/sites/policy.js';
import { contentOf, type WebGraph } from './web-graph.js';
import { replay } from './replay.js';

/**
 * A site's HTML pages in breadth-first order (limit.py's page sets): each page's external URLs
 * (ids) and the pages it links to (indices). Page 0 is the start page.
 */
export interface PageSet {
  name: string;
  group: string | null;
  pages: (readonly number[])[];
  edges: (readonly number[])[];
}

/** The three references of ../shared/replay-web/limit.py, in distinct (site, external URL) pairs. */
export interface References {
  /** the best split of N pages over the sites, each crawled breadth-first */
  bfsOracle: number;
  /** the best split of N pages over per-site sequences of a crawler that knows each frontier page's true gain */
  perfectPredictor: number;
  /** any N pages, no reachability: greedy maximum coverage */
  limit: number;
}

/** What each page of a breadth-first order adds to the site's set (limit.py bfs_tape). */
export function bfsTape(site: PageSet): number[] {
  const have = new Set<number>();
  return site.pages.map((p) => {
    let n = 0;
    for (const u of p) if (!have.has(u)) (have.add(u), n++);
    return n;
  });
}

const gainOf = (p: readonly number[], have: ReadonlySet<number>): number => {
  let n = 0;
  for (const u of p) if (!have.has(u)) n++;
  return n;
};

/**
 * limit.py perfect_predictor: from the start page, always the reachable page of the largest
 * true gain (lazy greedy: a page's stale priority is refreshed when it comes up), ties to the
 * lower index. The gains of the first `cap` pages, in fetch order.
 */
export function perfectPredictor(site: PageSet, cap: number): number[] {
  const { pages, edges } = site;
  if (pages.length === 0) return [];
  const have = new Set<number>();
  const seq: number[] = [];
  const heap = new Heap<[number, number]>((a, b) => a[0] - b[0] || a[1] - b[1]);
  heap.push([-pages[0]!.length, 0]);
  const queued = new Set([0]);
  while (heap.size && seq.length < cap) {
    const [neg, i] = heap.pop()!;
    const gain = gainOf(pages[i]!, have);
    if (gain < -neg) {
      heap.push([-gain, i]);
      continue;
    }
    for (const u of pages[i]!) have.add(u);
    seq.push(gain);
    for (const j of edges[i]!) {
      if (queued.has(j)) continue;
      queued.add(j);
      heap.push([-pages[j]!.length, j]);
    }
  }
  return seq;
}

/** limit.py limit: greedy maximum coverage over every page of every site, no reachability; the total at each budget. */
export function coverageLimit(sites: readonly PageSet[], budgets: readonly number[]): Map<number, number> {
  const heap = new Heap<[number, string, number, number]>((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || a[2] - b[2]);
  const covered = sites.map(() => new Set<number>());
  sites.forEach((s, k) => s.pages.forEach((p, i) => p.length && heap.push([-p.length, s.name, i, k])));
  const want = [...budgets].sort((a, b) => a - b);
  const res = new Map<number, number>();
  let got = 0;
  let picks = 0;
  while (want.length && heap.size) {
    const [neg, name, i, k] = heap.pop()!;
    const page = sites[k]!.pages[i]!;
    const gain = gainOf(page, covered[k]!);
    if (gain < -neg) {
      if (gain) heap.push([-gain, name, i, k]);
      continue;
    }
    for (const u of page) covered[k]!.add(u);
    got += gain;
    picks++;
    while (want.length && picks >= want[0]!) res.set(want.shift()!, got);
  }
  for (const n of want) res.set(n, got);
  return res;
}

/** The three references for each budget (limit.py main, for one set of sites). */
export function references(sites: readonly PageSet[], budgets: readonly number[]): Map<number, References> {
  const top = Math.max(...budgets);
  const bfs = oracleCurve(sites.map(bfsTape), top);
  const pp = oracleCurve(sites.map((s) => perfectPredictor(s, top)), top);
  const lim = coverageLimit(sites, budgets);
  const at = (c: Float64Array, n: number) => c[Math.min(n, c.length - 1)]!;
  return new Map(budgets.map((n) => [n, { bfsOracle: at(bfs, n), perfectPredictor: at(pp, n), limit: lim.get(n)! }]));
}

/** Everyone's choice for the single site of a one-site replay. */
const only: Policy = ({ arms }) => arms.find((a) => a.open)?.id ?? null;

/**
 * A page graph's sites as limit.py's page sets: the HTML pages in the order a breadth-first
 * beebot crawl reads them (no dead ends skipped: every page counts), their external URLs, and
 * their links to HTML pages (an in-site redirect followed to its target).
 */
export function pageSets(web: WebGraph): PageSet[] {
  return web.sites.map((site) => {
    const one = replay({ ...web, sites: [site] }, { policy: only, order: 'bfs', budget: null, deadEndAfter: null });
    const order = one.pulls.filter((p) => p.page).map((p) => contentOf(site, p.node));
    const index = new Map(order.map((node, i) => [node, i]));
    const edges = order.map((node) => {
      const e: number[] = [];
      for (const l of site.pages[node]!.links) {
        const j = index.get(contentOf(site, l.to));
        if (j !== undefined && !e.includes(j)) e.push(j);
      }
      return e;
    });
    return { name: site.host, group: site.group, pages: order.map((node) => site.pages[node]!.ext), edges };
  });
}

/** A binary min-heap. */
export class Heap<T> {
  private a: T[] = [];
  constructor(private less: (x: T, y: T) => number) {}
  get size(): number {
    return this.a.length;
  }
  push(x: T): void {
    const a = this.a;
    a.push(x);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (this.less(a[i]!, a[p]!) >= 0) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length && last !== undefined) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l]!, a[m]!) < 0) m = l;
        if (r < a.length && this.less(a[r]!, a[m]!) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}
