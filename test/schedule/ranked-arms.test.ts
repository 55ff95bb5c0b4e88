// The pages policy's pick from its ranked arms (schedule/ranked-arms.ts) is the pick of its pass
// over every arm (schedule/sites/pages.ts): on random arms and changes, on the bounds the ranked
// arms trust (model.ts indexCeiling, link-order.ts worthCeiling), and pull for pull on replays of
// a generated web in every order.
import { describe, expect, it } from 'vitest';
import { RankedArms } from '../../src/schedule/ranked-arms.js';
import { pages } from '../../src/schedule/sites/pages.js';
import type { Arm, Policy } from '../../src/schedule/sites/policy.js';
import { CueModel } from '../../src/schedule/links/model.js';
import { CrawlOrder } from '../../src/schedule/link-order.js';
import { relativeValue } from '../../src/schedule/links/link-value.js';
import { ORDERS, START } from '../../src/schedule/links/priority.js';
import { replay } from '../../src/replay/replay.js';
import type { GraphPage, WebGraph } from '../../src/replay/web-graph.js';
import { mulberry32 as rngOf } from '../../src/schedule/sites/random.js';
import type { FrontierPage } from '../../src/schedule/queued-page.js';

const arm = (id: number): Arm => ({ id, pulls: 0, rewardSum: 0, rewardMax: 0, rewards: [], open: false, group: null, next: undefined });

describe('ranked arms', () => {
  it('pick what the pass over all the arms picks, through random changes, ties and moving worths', () => {
    const random = rngOf(7);
    const pick = (n: number) => Math.floor(random() * n);
    for (let round = 0; round < 20; round++) {
      const arms = Array.from({ length: 40 }, (_, i) => arm(i + 1));
      const moving = new Map<number, number>(); // id → priority, for the open arms whose worth moves
      const ranked = new RankedArms();
      let index = 1 + pick(5); // what every moving worth is multiplied by at the pick
      const worth = (_id: number, p: number) => p * index;
      for (let step = 0; step < 300; step++) {
        const a = arms[pick(arms.length)]!;
        a.pulls = pick(4); // few values: ties on pulls
        a.open = random() < 0.8;
        moving.delete(a.id);
        if (!a.open) ranked.drop(a.id);
        else if (random() < 0.4) {
          const p = pick(6);
          moving.set(a.id, p);
          ranked.set(a, true, p);
        } else {
          a.next = [undefined, 0, 2, 5, 10, START][pick(6)]; // ties on worth, undefined as 0, start pages
          ranked.set(a, false);
        }
        if (random() < 0.3) index = 1 + pick(5);
        // the pass reads each moving arm's worth now
        for (const [id, p] of moving) arms[id - 1]!.next = worth(id, p);
        const expected = pages()({ arms, history: [], budget: null, random });
        expect(ranked.first(worth, (p) => p * index)).toBe(expected);
        expect(ranked.first(worth, () => Infinity)).toBe(expected); // a loose bound: the same pick
      }
    }
  });

  it('do not value the moving arms when the first fixed one is worth more than their bound', () => {
    const ranked = new RankedArms();
    const a = arm(1);
    a.open = true;
    a.next = START;
    ranked.set(a, false);
    const b = arm(2);
    b.open = true;
    ranked.set(b, true, 3);
    let valued = 0;
    const worth = (_id: number, p: number) => (valued++, p);
    expect(ranked.first(worth, (p) => p)).toBe(1);
    expect(valued).toBe(0);
    expect(ranked.first(worth, () => START)).toBe(1); // the bound ties: the moving arms are valued
    expect(valued).toBe(1);
    ranked.drop(1);
    expect(ranked.first(worth, (p) => p)).toBe(2);
    ranked.clear();
    expect(ranked.first(worth, (p) => p)).toBeNull();
  });
});

describe('the bounds the ranked arms trust', () => {
  it("a site's index is never above the model's index ceiling, nor a moving worth above the order's ceiling", () => {
    const random = rngOf(11);
    const model = new CueModel();
    for (let i = 0; i < 3000; i++) {
      model.learn(1 + Math.floor(random() * 30), [], Math.floor(random() ** 3 * 200));
      for (let s = 1; s <= 31; s++) expect(model.siteIndex(s)).toBeLessThanOrEqual(model.indexCeiling());
    }
    const order = new CrawlOrder('value', null);
    for (let i = 0; i < 500; i++) {
      const page: FrontierPage = { id: i, siteId: 1 + Math.floor(random() * 20), url: `http://s.test/${i}`, level: 1 + (i % 3), priority: 1 };
      order.learn(page, Math.floor(random() ** 3 * 100), undefined);
      const priorities = Array.from({ length: 10 }, () => relativeValue(random() * 50, 1 + random() * 10));
      const top = Math.max(...priorities);
      for (let s = 1; s <= 21; s++) for (const p of priorities) expect(order.worth(s, p)).toBeLessThanOrEqual(order.worthCeiling(top));
    }
  });
});

/**
 * A generated web: `sites` sites of a start page and a tree of pages below it (each links to a
 * few children and back to the start page), each page with a few external URLs, some shared.
 */
function generatedWeb(sites: number, seed: number): WebGraph {
  const random = rngOf(seed);
  const urls = Array.from({ length: 400 }, (_, i) => `ext${i}.test/`);
  const blocks = ['p:body>ul>li', 'p:body>nav>a', 'p:body>p>a'];
  return {
    source: 'generated', maxLevel: 8, urls, urlHost: urls.map((_, i) => i % 97), hosts: Array.from({ length: 97 }, (_, i) => `h${i}.test`),
    sites: Array.from({ length: sites }, (_, s) => {
      const n = 5 + Math.floor(random() * 40);
      const pages: GraphPage[] = [];
      for (let i = 0; i < n; i++) {
        const level = i === 0 ? 0 : pages[Math.floor((i - 1) / 3)]!.level + 1;
        const ext = Array.from({ length: Math.floor(random() ** 2 * 12) }, () => Math.floor(random() * urls.length));
        pages.push({ url: `http://site${s}.test/${i === 0 ? '' : `p${i}`}`, level, status: 'done', http: 200, ext: [...new Set(ext)], links: [] });
      }
      for (let i = 0; i < n; i++) {
        const children = [1, 2, 3].map((k) => 3 * i + k).filter((c) => c < n);
        const word = (c: number) => ['news', 'about', 'links', 'team'][c % 4]!;
        pages[i]!.links = [...children, ...(i > 0 ? [0] : [])].map((to) => ({ to, anchor: word(to), cues: `a:${word(to)} ${blocks[to % 3]}` }));
      }
      return { host: `site${s}.test`, group: null, pages };
    }),
  };
}

describe('the crawl pulls what the pass over every arm would have', () => {
  // the pages policy without its mark: the scheduler gives it every arm and it reads them all
  const pass: Policy = (input) => pages()(input);
  const web = generatedWeb(60, 3);

  for (const order of ORDERS) {
    it(`--order ${order}: the same pulls, pull for pull`, () => {
      for (const budget of [25, 400, null]) {
        const ranked = replay(web, { policy: pages(), order, budget });
        const passed = replay(web, { policy: pass, order, budget });
        expect(ranked.pulls.length).toBeGreaterThan(0);
        expect(ranked.pulls.map((p) => [p.site, p.node])).toEqual(passed.pulls.map((p) => [p.site, p.node]));
      }
    });
  }
});
