// The offline replay of crawls on page graphs (src/replay) on hand-made graphs: the pulls, the
// rewards and the counts worked out by hand, and limit.py's three references.
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/schedule/sites/policy.js';
import type { Order } from '../../src/schedule/links/priority.js';
import type { GraphPage, WebGraph } from '../../src/replay/web-graph.js';
import { bfsTape, coverageLimit, pageSets, perfectPredictor, references, type PageSet } from '../../src/replay/references.js';
import { replay } from '../../src/replay/replay.js';
import { atEqualPages, folds, measure, ownOrderOracle, subsets } from '../../src/replay/cross-validate.js';
import { saveGraph } from '../../src/replay/web-graph.js';
import { join } from 'node:path';
import { beebot, tempDir } from '../helpers/cli.js';

const page = (url: string, level: number, ext: number[], links: number[], more: Partial<GraphPage> = {}): GraphPage => ({
  url, level, status: 'done', http: 200, ext, links: links.map((to) => ({ to, anchor: `link ${to}`, cues: '' })), ...more,
});

// External URLs u0..u6 on hosts x (u0, u1, u5), y (u2, u3), z (u4), w (u6).
const web: WebGraph = {
  source: 'hand-made', maxLevel: 5,
  urls: ['x.test/0', 'x.test/1', 'y.test/2', 'y.test/3', 'z.test/4', 'x.test/5', 'w.test/6'],
  urlHost: [0, 0, 1, 1, 2, 0, 3],
  hosts: ['x.test', 'y.test', 'z.test', 'w.test'],
  sites: [
    {
      host: 'a.test', group: 'A', pages: [
        page('http://a.test/', 0, [0, 1], [1, 2]),
        page('http://a.test/links.html', 1, [1, 2, 3], [3]),
        page('http://a.test/gone.html', 1, [], [], { status: 'error', http: 404 }),
        page('http://a.test/deep/more.html', 2, [4], []),
      ],
    },
    {
      host: 'b.test', group: 'B', pages: [
        page('http://b.test/', 0, [0], [1, 3]),
        page('http://b.test/dir', 1, [], [], { target: 2 }), // 301 to dir/: the pull reads dir/
        page('http://b.test/dir/', 1, [5, 6], []),
        page('http://b.test/private/', 1, [], [], { status: 'error', http: null, robots: true }),
        page('http://b.test/ok.html', 1, [4], []),
      ],
    },
  ],
};
// b/ links ok.html only as https://www.b.test/ok.html, whose origin's robots.txt denies it: the crawl never fetches it.
web.sites[1]!.pages[0]!.links.push({ to: 4, anchor: 'ok', cues: '', url: 'https://www.b.test/ok.html', robots: true });

/** The open site with the fewest pulls, ties to the lower id. */
const fewest: Policy = ({ arms }) => {
  const open = arms.filter((a) => a.open).sort((a, b) => a.pulls - b.pulls || a.id - b.id);
  return open[0]?.id ?? null;
};

describe('replay on a hand-made page graph', () => {
  it('pulls breadth-first as the crawl does: rewards new to the site, a redirect reads its target, robots.txt costs no pull', () => {
    const r = replay(web, { policy: fewest, order: 'bfs', budget: null });
    // a/, b/, a/links, b/dir (reads dir/), a/gone (404), then b/private and b/ok.html are robots-denied (no pull) and b is closed: a/deep.
    expect(r.pulls.map((p) => [p.site, p.node, p.urls])).toEqual([[1, 0, 2], [2, 0, 1], [1, 1, 2], [2, 1, 2], [1, 2, 0], [1, 3, 1]]);
    expect(r.pulls.map((p) => p.page)).toEqual([true, true, true, true, false, true]);
    expect(r.pulls.map((p) => p.hosts)).toEqual([1, 1, 1, 1, 0, 1]); // dir/: u5 is on x, which b knows from u0
    expect(r.pulls.map((p) => p.pairs)).toEqual([2, 1, 3, 2, 0, 1]);
    // (site, URL) pairs; distinct URLs u0..u6 in all; hosts x, y, w, z
    expect(r.pairs).toEqual([2, 3, 5, 7, 7, 8]);
    expect(r.urls).toEqual([2, 2, 4, 6, 6, 7]);
    expect(r.hosts).toEqual([1, 1, 2, 3, 3, 4]);
  });

  it('stops at the budget, and the ordered crawl runs the same graph', () => {
    expect(replay(web, { policy: fewest, order: 'bfs', budget: 4 }).pairs).toEqual([2, 3, 5, 7]);
    expect(() => replay(web, { policy: fewest, order: 'opic' as Order, budget: 4 })).toThrow('no order "opic" (orders: bfs, best-first, plain, shark-search, otie, value)');
    // Too few pages for best-first to promote anything: breadth-first order.
    expect(replay(web, { policy: fewest, order: 'best-first', budget: null }).pairs).toEqual([2, 3, 5, 7, 7, 8]);
  });

  it('reads the HTML pages as limit.py\'s page sets: breadth-first, redirects followed, errors and robots left out', () => {
    const sets = pageSets(web);
    expect(sets.map((s) => s.pages)).toEqual([[[0, 1], [1, 2, 3], [4]], [[0], [5, 6]]]);
    expect(sets.map((s) => s.edges)).toEqual([[[1], [2], []], [[1], []]]);
  });
});

describe("limit.py's references", () => {
  // S1: p0 [1] -> p1, p2; p1 [] ; p2 [2] -> p3; p3 [3, 4, 5]. S2: q0 [1, 6] -> q1; q1 [6, 7].
  const s1: PageSet = { name: 'S1', group: null, pages: [[1], [], [2], [3, 4, 5]], edges: [[1, 2], [], [3], []] };
  const s2: PageSet = { name: 'S2', group: null, pages: [[1, 6], [6, 7]], edges: [[1], []] };

  it('the breadth-first tape and the perfect predictor (best reachable page first, by its true gain)', () => {
    expect(bfsTape(s1)).toEqual([1, 0, 1, 3]);
    expect(perfectPredictor(s1, 10)).toEqual([1, 1, 3, 0]);
    expect(perfectPredictor(s1, 2)).toEqual([1, 1]);
    expect(perfectPredictor(s2, 10)).toEqual([2, 1]);
  });

  it('the limit: greedy coverage over every page, no reachability', () => {
    expect([...coverageLimit([s1, s2], [1, 2, 3, 5, 9])]).toEqual([[1, 3], [2, 5], [3, 6], [5, 8], [9, 8]]);
  });

  it('the best split of N pages over the sites, breadth-first and perfect-predictor', () => {
    const r = references([s1, s2], [1, 2, 3]);
    expect(r.get(1)).toEqual({ bfsOracle: 2, perfectPredictor: 2, limit: 3 });
    expect(r.get(2)).toEqual({ bfsOracle: 3, perfectPredictor: 3, limit: 5 });
    expect(r.get(3)).toEqual({ bfsOracle: 4, perfectPredictor: 5, limit: 6 });
  });
});

describe("a site scheduler's headroom: the best split over the method's own order inside each site", () => {
  it('replays each site alone and splits N pages the best way; a tuned method is tuned without the site it crawls', () => {
    // Alone, breadth-first: a gives 2, 2, 0 (404), 1; b gives 1, then 2 (dir/), and nothing else it may fetch.
    const bfs = { name: 'bfs', make: () => ({ policy: fewest, order: 'bfs' as const }) };
    expect(ownOrderOracle(bfs, web, [0, 1], 3)).toEqual({ pairs: 5, pages: new Map([[0, 2], [1, 1]]) });
    expect(ownOrderOracle(bfs, web, [0, 1], 4)).toEqual({ pairs: 7, pages: new Map([[0, 2], [1, 2]]) });
    expect(ownOrderOracle(bfs, web, [1], 9)).toEqual({ pairs: 3, pages: new Map([[1, 2]]) });
    // Two folds of one site each, half the budget each: a from 2 pages (4), b from 2 (3).
    const trainedOn: string[][] = [];
    const tuned = { name: 'tuned', tune: (g: WebGraph) => trainedOn.push(g.sites.map((x) => x.host)), make: bfs.make };
    expect(ownOrderOracle(tuned, web, [0, 1], 4, { k: 2 })).toEqual({ pairs: 7, pages: new Map([[0, 2], [1, 2]]) });
    expect(trainedOn.sort()).toEqual([['a.test'], ['b.test']]);
  });
});

describe('the order inside a site against breadth-first at equal pages', () => {
  it('replays each site alone for the pulls the crawl gave it, in the method\'s order and breadth-first', () => {
    const best = { name: 'best', make: () => ({ policy: fewest, order: 'best-first' as const }) };
    // a alone: 2, 2 (links.html), then gone.html (404) before deep/more.html (1)
    expect(atEqualPages(best.make(), web, 0, 2)).toEqual({ alone: 4, bfs: 4 });
    expect(atEqualPages(best.make(), web, 0, 4)).toEqual({ alone: 5, bfs: 5 });
    expect(atEqualPages(best.make(), web, 1, 0)).toEqual({ alone: 0, bfs: 0 });
    const m = measure(best, web, pageSets(web), [0, 1], 4, { orders: true });
    expect([...m.sites.values()].map((x) => [x.pulls, x.pairs, x.alone, x.bfs])).toEqual([[2, 4, 4, 4], [2, 3, 3, 3]]);
    expect(measure(best, web, pageSets(web), [0, 1], 4).sites.get(0)!.bfs).toBeUndefined();
  });
});

describe('leave-sites-out folds and subsets', () => {
  it('every site in exactly one fold; subsets of the asked size; the same seed, the same split', () => {
    const f = folds(20, 5, 1);
    expect(f.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(f.map((x) => x.length)).toEqual([4, 4, 4, 4, 4]);
    expect(folds(20, 5, 1)).toEqual(f);
    const s = subsets(20, 10, 3, 1);
    expect(s.map((x) => new Set(x).size)).toEqual([10, 10, 10]);
    expect(subsets(20, 10, 3, 1)).toEqual(s);
  });
});

describe('simulate --graph', () => {
  it('replays the policy with the order and prints the references; an unreadable graph is one line, exit 2', async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'web.json.gz');
      saveGraph(file, web);
      const db = join(tmp.dir, 'x.db');
      const r = await beebot(['simulate', '--graph', file, '--budget', '4', '--policies', 'round-robin', '--order', 'bfs', '--json'], { db });
      expect(r.stderr).toBe('');
      const out = JSON.parse(r.stdout) as { references: unknown; rows: { policy: string; pairs: number; urls: number; hosts: number; pulls: number }[] };
      // tapes a [2, 2, 1], b [1, 2]; the perfect predictor walks the same; the limit: a/links, b/dir/, a/, a/deep
      expect(out.references).toEqual({ bfsOracle: 7, perfectPredictor: 7, limit: 7 });
      // round-robin's turn of 10 pages: a/, a/links, a/gone, a/deep
      expect(out.rows).toMatchObject([{ policy: 'round-robin', pulls: 4, pairs: 5, urls: 5, hosts: 3 }]);
      const pages = web.sites.reduce((a, x) => a + x.pages.length, 0);
      const whole = await beebot(['simulate', '--graph', file, '--budget', String(pages), '--policies', 'round-robin,ucb1'], { db });
      expect(whole.code, whole.stderr).toBe(0);
      expect(whole.stderr).toBe(`the page graph holds ${pages} pages: a budget of ${pages} replays all of them, so every policy fetches every page it can reach and finds the same links; use --budget below ${pages} to compare the policies\n`);
      const pairs = whole.stdout.trim().split('\n').slice(3).map((l) => l.split('\t')[1]);
      expect(pairs).toHaveLength(2);
      expect(new Set(pairs).size).toBe(1);
      const bad = await beebot(['simulate', '--graph', join(tmp.dir, 'none.json'), '--budget', '4'], { db });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(/cannot read the page graph/);
    } finally {
      tmp.cleanup();
    }
  });
});
