// A site's belief (schedule/links/site-belief.ts) and what the pages scheduler makes of it: a site whose
// start page links out nowhere but whose second level pays is reached and crawled; the bench's
// shift (replay/shifted-starts.ts) and its mix of webs (web-graph.ts mergeGraphs); the sites
// named as barely crawled (schedule/sites/barely-crawled.ts).
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../src/schedule/sites/registry.js';
import { barelyCrawled, barelyCrawledLine } from '../../src/schedule/sites/barely-crawled.js';
import { mergeGraphs, type GraphPage, type WebGraph } from '../../src/replay/web-graph.js';
import { replay } from '../../src/replay/replay.js';
import { barrenStart, reroot, shiftedStarts } from '../../src/replay/shifted-starts.js';
import { bfsYields, lateBloomers, lateStart } from '../../src/replay/late-bloomers.js';
import { believedYield, crawlMean, HUB, HUB_PRIOR_PAGES, LIVE, optimisticYield, PRIOR_PAGES, RECENT, tailYield } from '../../src/schedule/links/site-belief.js';
import { CueModel } from '../../src/schedule/links/model.js';

const page = (url: string, level: number, ext: number[], links: number[], more: Partial<GraphPage> = {}): GraphPage => ({
  url, level, status: 'done', http: 200, ext, links: links.map((to) => ({ to, anchor: `page ${to}`, cues: `a:page p:ul>li` })), ...more,
});
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/**
 * rich.test: a start page of 20 external URLs, then 40 pages of 3 new ones each (a steady site).
 * hidden.test: a start page with no external link, then 4 pages of 25 new external URLs each.
 */
function twoSites(): WebGraph {
  const urls = range(0, 20 + 40 * 3 + 4 * 25).map((i) => `ext${i}.test/`);
  const rich = [page('http://rich.test/', 0, range(0, 20), range(1, 40)), ...range(0, 40).map((i) => page(`http://rich.test/${i}`, 1, range(20 + 3 * i, 3), []))];
  const hidden = [page('http://hidden.test/', 0, [], range(1, 4)), ...range(0, 4).map((i) => page(`http://hidden.test/${i}`, 1, range(140 + 25 * i, 25), []))];
  return {
    source: 'hand-made', maxLevel: 5, urls, urlHost: urls.map((_, i) => i), hosts: urls,
    sites: [{ host: 'rich.test', group: null, pages: rich }, { host: 'hidden.test', group: null, pages: hidden }],
  };
}

describe("a site's belief", () => {
  it('is its mean shrunk towards the crawl\'s, and its doubt shrinks with its pages', () => {
    expect(PRIOR_PAGES).toBe(1);
    expect(believedYield({ n: 0, sum: 0 }, 6)).toBe(6); // no page yet: the crawl's mean
    expect(believedYield({ n: 1, sum: 0 }, 6)).toBe(3); // one barren page halves it, not zero
    expect(believedYield({ n: 9, sum: 0 }, 6)).toBeCloseTo(0.6, 12); // evidence ends it
    expect(believedYield({ n: 99, sum: 990 }, 6)).toBeCloseTo(9.96, 12);
    // shape 6, rate 2: mean 3, one deviation sqrt(6)/2
    expect(optimisticYield({ n: 1, sum: 0 }, 6)).toBeCloseTo(3 + Math.sqrt(6) / 2, 12);
    expect(optimisticYield({ n: 1, sum: 0 }, 6) / believedYield({ n: 1, sum: 0 }, 6)).toBeGreaterThan(optimisticYield({ n: 99, sum: 990 }, 6) / believedYield({ n: 99, sum: 990 }, 6));
    expect(crawlMean(0, 0, 1.5)).toBe(1.5); // before any pull: the offline prior's mean
    expect(crawlMean(10 + 2, 2, 0)).toBe(4); // sites of means 10 and 2, and the prior as a third site
  });

  it('the model keeps the crawl\'s mean as pages are learned: each site one vote, its start page left out', () => {
    const m = new CueModel(null);
    expect(m.crawlMean()).toBe(1); // no prior: one new URL a page
    m.learn(1, [], 30); // start pages: the template's links, new once
    m.learn(1, [], 10);
    m.learn(2, [], 50);
    expect(m.siteBelief(2)).toBe(m.crawlMean());
    m.learn(2, [], 0);
    expect(m.crawlMean()).toBeCloseTo((10 + 0 + 1) / 3, 12);
    expect(m.siteBelief(2)).toBeCloseTo((0 + m.crawlMean()) / 2, 12);
    expect(m.siteIndex(2)).toBeGreaterThan(m.siteBelief(2));
  });

  it('reads what a site gives now from its last RECENT pages: a hub that paid once does not hold it up', () => {
    const m = new CueModel(null);
    m.learn(1, [], 5); // start page
    m.learn(1, [], 1000); // a hub
    const held = m.siteIndex(1);
    for (let i = 0; i < RECENT; i++) m.learn(1, [], 0);
    const c = m.crawlTail();
    expect(c.hubRate).toBeCloseTo(1 / (RECENT + 2), 12); // one hub in RECENT + 1 pages after the start, and one more page of doubt
    expect(c.hubSize).toBeCloseTo(1000, 9);
    expect(c.smallMean).toBeCloseTo((0 + 1) / 2, 12); // its pages that are not hubs: 0, and the prior's 1
    expect(c.quiet).toBeCloseTo((RECENT + 1) / (RECENT + 1 + 2), 12); // a live site's pages: the hub and RECENT quiet ones (one more of each as a prior)
    expect(m.siteIndex(1)).toBeCloseTo(tailYield({ n: RECENT, hubs: 0, small: 0, seen: true }, c), 12);
    expect(m.siteIndex(1)).toBeLessThan(held / 10);
    expect(m.siteBelief(1)).toBeCloseTo((1000 + m.crawlMean()) / (RECENT + 2), 12); // the cue model's base: every page after the start
  });
});

describe("a site's worth under a heavy tail", () => {
  const crawl = { smallMean: 2, hubRate: 0.05, hubSize: 200, quiet: 0.5 };
  const worth = (ys: number[]) => tailYield({ n: ys.length, hubs: ys.filter((y) => y >= HUB).length, small: ys.filter((y) => y < HUB).reduce((a, y) => a + y, 0), seen: ys.some((y) => y > 0) }, crawl);

  it('keeps a hub\'s chance apart from its size: the next page may be a hub, worth the crawl\'s typical one', () => {
    expect(HUB).toBe(30);
    expect(HUB_PRIOR_PAGES).toBe(10);
    // no page yet: the crawl's share of hubs, plus one deviation, of the crawl's hub; else its small yield
    const rate = 0.05;
    const hub = rate + Math.sqrt((rate * (1 - rate)) / 11);
    expect(worth([])).toBeCloseTo((1 - hub) * optimisticYield({ n: 0, sum: 0 }, 2) + hub * 200, 12);
    // one hub in three pages raises the chance of the next one; how big it was does not count
    expect(worth([1, 0, 40])).toBe(worth([1, 0, 3000]));
    expect(worth([1, 0, 40])).toBeGreaterThan(worth([1, 0, 1]));
    // and a site that keeps paying hubs is believed to keep doing so
    expect(worth([40, 50, 60, 40])).toBeGreaterThan(worth([1, 0, 40]));
  });

  it('two quiet pages hardly lower a live site\'s worth; a site that shows nothing after its start falls page by page', () => {
    // a Poisson belief alone (the crawl's mean worth one page) keeps under half of it after 1, 0
    expect(optimisticYield({ n: 2, sum: 1 }, 2) / optimisticYield({ n: 0, sum: 0 }, 2)).toBeLessThan(0.5);
    expect(worth([1, 0])).toBeGreaterThan(0.75 * worth([]));
    expect(worth([1, 0, 1])).toBeGreaterThan(0.7 * worth([]));
    expect(worth([0, 0, 0])).toBeLessThan(worth([1, 0, 1]) / 2);
    const live = (n: number) => worth(Array<number>(n).fill(0)) / tailYield({ n, hubs: 0, small: 0, seen: true }, crawl);
    expect(LIVE).toBe(0.8);
    expect(live(0)).toBe(1); // before its first page, as likely live as the crawl's sites
    expect(live(1)).toBeCloseTo(5 / 6, 12); // where half the live sites' pages are quiet
    expect(live(3)).toBeCloseTo(0.125 / 0.3, 12);
    expect(live(5)).toBeLessThan(0.15);
    // where two thirds are, a quiet page tells less
    const twoThirds = (n: number) => tailYield({ n, hubs: 0, small: 0, seen: false }, { ...crawl, quiet: 2 / 3 }) / tailYield({ n, hubs: 0, small: 0, seen: true }, { ...crawl, quiet: 2 / 3 });
    expect(twoThirds(3)).toBeCloseTo(0.68, 2);
    expect(twoThirds(10)).toBeCloseTo(0.081, 3);
    // a steady small site is not a hub site: after many pages its chance of a hub is its own
    expect(worth(Array<number>(100).fill(2))).toBeLessThan(worth([]));
  });
});

describe('the pages scheduler on a site whose start page links out nowhere', () => {
  it('reaches its second level, which pays, and crawls it', () => {
    const r = replay(twoSites(), { policy: makePolicy('pages'), order: 'value', budget: 30 });
    const hidden = r.pulls.filter((p) => p.site === 2);
    expect(hidden.length).toBe(5); // the start page and its 4 pages
    expect(hidden.reduce((a, p) => a + p.urls, 0)).toBe(100);
    expect(r.pairs.at(-1)).toBe(20 + 24 * 3 + 100); // the rest of the 30 pages on rich.test
  });
});

/**
 * hub.test: an ordinary site whose hub comes early: pages of 2, 0, 300 new external URLs, then 60
 * pages of 1. quiet.test: pages of 1, 0, 1, then four of 30. barren.test: as many pages, none with
 * a new external URL. Every start page has 10 or 5.
 */
function quietAndBarren(): WebGraph {
  let next = 0;
  const take = (n: number) => range((next += n) - n, n);
  const site = (host: string, start: number, ys: number[]) => ({
    host, group: null,
    pages: [page(`http://${host}/`, 0, take(start), range(1, ys.length)), ...ys.map((y, i) => page(`http://${host}/${i}`, 1, take(y), []))],
  });
  const sites = [site('hub.test', 10, [2, 0, 300, ...Array<number>(60).fill(1)]), site('quiet.test', 5, [1, 0, 1, 30, 30, 30, 30]), site('barren.test', 5, Array<number>(7).fill(0))];
  const urls = range(0, next).map((i) => `ext${i}.test/`);
  return { source: 'hand-made', maxLevel: 5, urls, urlHost: urls.map((_, i) => i), hosts: urls, sites };
}

describe('the pages scheduler on a quiet start beside a barren site', () => {
  it('crawls the quiet site\'s hubs before the budget ends, and leaves the barren site after 3 pulls', () => {
    const r = replay(quietAndBarren(), { policy: makePolicy('pages'), order: 'value', budget: 40 });
    const yields = (site: number) => r.pulls.filter((p) => p.site === site).map((p) => p.urls);
    expect(yields(2)).toEqual([5, 1, 0, 1, 30, 30, 30, 30]); // its whole site: two quiet pages did not rule it out
    expect(yields(3).length).toBeLessThanOrEqual(3); // the start page and at most 2 barren ones
    expect(yields(1).length).toBeGreaterThanOrEqual(40 - 8 - 3); // the rest on hub.test
  });
});

describe('the bench under shift', () => {
  const web = twoSites();
  it('moves a start to its first level 1-2 page without external links, levels counted from there', () => {
    const site = { host: 's.test', group: null, pages: [
      page('http://s.test/', 0, [0], [1, 2]),
      page('http://s.test/a', 1, [1], [2]),
      page('http://s.test/b', 1, [], [0, 3]),
      page('http://s.test/c', 2, [2], []),
    ] };
    expect(barrenStart(site)).toBe(2);
    const moved = reroot(site, 2, 5);
    expect(moved.pages.map((p) => [p.url, p.level])).toEqual([['http://s.test/b', 0], ['http://s.test/', 1], ['http://s.test/c', 1], ['http://s.test/a', 2]]);
    expect(moved.pages[0]!.links.map((l) => l.to)).toEqual([1, 2]);
    expect(moved.pages[1]!.links.map((l) => l.to)).toEqual([3, 0]);
    // a site whose pages all link out keeps its start
    expect(shiftedStarts(web).sites[0]).toBe(web.sites[0]);
  });

  it('seeds a late bloomer where the pages read next are quiet and a hub comes a few pages later', () => {
    // s/ pays 5 and links a/ and q/; a/ pays 35 at once; q/ leads to pages of 1, 0, 1 new URLs, then 30 (which links s/)
    const urls = range(0, 100).map((i) => `ext${i}.test/`);
    const site = { host: 's.test', group: null, pages: [
      page('http://s.test/', 0, range(0, 5), [1, 2]),
      page('http://s.test/a', 1, range(5, 35), []),
      page('http://s.test/q', 1, [], [3, 4, 5, 6, 7]),
      page('http://s.test/q1', 2, [45], []),
      page('http://s.test/q2', 2, [], []),
      page('http://s.test/q3', 2, [46], []),
      page('http://s.test/q4', 2, range(50, 30), [0]),
      page('http://s.test/q5', 2, [], [], { robots: true }),
    ] };
    expect(bfsYields(site, 0, 5, 9)).toEqual([5, 35, 0, 1, 0, 1, 30]); // the robots-denied page is no pull
    expect(bfsYields(site, 2, 5, 9)).toEqual([0, 1, 0, 1, 30, 5, 35]);
    expect(lateStart(site, 5)).toBe(2);
    const g: WebGraph = { source: 'hand-made', maxLevel: 5, urls, urlHost: urls.map((_, i) => i), hosts: urls, sites: [site, web.sites[0]!] };
    const late = lateBloomers(g);
    expect(late.late).toEqual([0]); // rich.test: no quiet run
    expect(late.web.sites[0]!.pages.map((p) => p.url).slice(0, 5)).toEqual(['http://s.test/q', 'http://s.test/q1', 'http://s.test/q2', 'http://s.test/q3', 'http://s.test/q4']);
    expect(late.web.sites[1]).toBe(g.sites[1]);
  });

  it('mixes a second web in: its external URLs renumbered, a URL both link to counted once', () => {
    const other: WebGraph = { source: 'other', maxLevel: 5, urls: ['ext0.test/', 'new.test/'], urlHost: [0, 1], hosts: ['ext0.test/', 'new.test'], sites: [
      { host: 'c.test', group: 'C', pages: [page('http://c.test/', 0, [1, 0], [])] },
    ] };
    const both = mergeGraphs(web, other);
    expect(both.sites.map((s) => s.host)).toEqual(['rich.test', 'hidden.test', 'c.test']);
    expect(both.sites[2]!.pages[0]!.ext.map((u) => both.urls[u])).toEqual(['new.test/', 'ext0.test/']);
    expect(both.urls.length).toBe(web.urls.length + 1);
    expect(both.hosts[both.urlHost[both.urls.indexOf('new.test/')]!]).toBe('new.test');
  });
});

describe('sites barely crawled', () => {
  it('are open sites with pages queued and under a tenth of an even split', () => {
    const sites = [
      { name: 'big', fetched: 700, frontier: 900, open: true },
      { name: 'pg', fetched: 1, frontier: 340, open: true },
      { name: 'done', fetched: 1, frontier: 0, open: true }, // exhausted: nothing was left to crawl
      { name: 'capped', fetched: 2, frontier: 50, open: false },
      { name: 'fair', fetched: 30, frontier: 50, open: true },
    ];
    expect(barelyCrawled(sites).map((s) => s.name)).toEqual(['pg']); // even split 146.8: under 14.7 pages
    expect(barelyCrawledLine(sites[1]!, 'pages')).toBe('pg: 1 page, 340 queued: the scheduler found better pages elsewhere; --order bfs crawls every site evenly');
    expect(barelyCrawledLine(sites[3]!, 'ucb1')).toBe('capped: 2 pages, 50 queued: the scheduler found better pages elsewhere; --policy round-robin crawls every site evenly');
  });
});
