// --order value (src/schedule/links/link-value.ts) on hand-made pages, the pages policy on hand-made arms,
// and the two together on a hand-made page graph: which page each pull takes.
import { describe, expect, it } from 'vitest';
import { pages } from '../../src/schedule/sites/pages.js';
import type { Arm } from '../../src/schedule/sites/policy.js';
import type { GraphPage, WebGraph } from '../../src/replay/web-graph.js';
import { replay } from '../../src/replay/replay.js';
import { linkCues } from '../../src/schedule/links/cues.js';
import { absoluteValue, linkValue, relativeValue, siteValues, VALUE_DEFAULTS } from '../../src/schedule/links/link-value.js';
import { rescores } from '../../src/schedule/links/rescore.js';
import { priorFromFile, priorToFile } from '../../src/schedule/links/cue-prior-file.js';
import { shippedPrior } from '../../src/schedule/links/shipped-prior.js';
import { CrawlOrder } from '../../src/schedule/link-order.js';
import { CueModel } from '../../src/schedule/links/model.js';
import { cuePrior } from '../../src/replay/cue-prior.js';
import { priorityOf, PROMOTE, rescoreDue, START } from '../../src/schedule/links/priority.js';
import type { FrontierPage } from '../../src/schedule/queued-page.js';

const cues = (url: string, anchor: string, path: string) => linkCues(url, anchor, { path });

describe('link value', () => {
  // Site 1 fetched its start page (2 new URLs) and two pages of its "ul.changes>li" block (12, 6).
  const model = new CueModel();
  model.learn(1, [], 2);
  model.learn(1, cues('http://s/changes/v1.html', 'v1', 'ul.changes>li'), 12);
  model.learn(1, cues('http://s/changes/v2.html', 'v2', 'ul.changes>li'), 6);
  const sibling = cues('http://s/changes/v3.html', 'v3', 'ul.changes>li');
  const other = cues('http://s/guide/intro.html', 'intro', 'div.toc>li');

  it('is the cue model\'s prediction: a sibling of a paying block is worth its smoothed mean', () => {
    // the site's belief (site-belief.ts, the start page left out): its mean (12+6)/2 = 9 shrunk by one
    // page of the crawl's mean (9 + 1)/2 = 5: (18 + 5)/3 = 23/3; cross-site prior of
    // p:ul.changes>li = (18 + 3·23/3)/(2+3) = 41/5; per site: (18 + 3·41/5)/(2+3) = 213/25
    expect(sibling).toContain('p:ul.changes>li');
    expect(model.siteBelief(1)).toBeCloseTo(23 / 3, 10);
    expect(linkValue(model, 1, sibling, { explore: 0 })).toBeCloseTo(213 / 25, 10);
    // a link of a block never tried: the site's belief
    expect(linkValue(model, 1, other, { explore: 0 })).toBeCloseTo(23 / 3, 10);
  });

  it('adds optimism for an untried block, shrinking with the block\'s pulls', () => {
    // as a multiple of the site's mean over all its pages, (2+12+6)/3
    expect(linkValue(model, 1, other, { explore: 1 })).toBeCloseTo(23 / 3 + 20 / 3, 10);
    expect(linkValue(model, 1, sibling, { explore: 1 })).toBeCloseTo(213 / 25 + 20 / 3 / Math.sqrt(3), 10);
  });

  it('leaves out the kinds of cue it is told to (ablation)', () => {
    // without the block and URL words, the sibling only has its anchor "v3", never seen: the site's belief
    expect(linkValue(model, 1, sibling, { explore: 0, drop: ['p', 'u'] })).toBeCloseTo(23 / 3, 10);
  });

  it('is the priority of --order value, in the same unit on every site', () => {
    const link = { cues: sibling, cash: 0, inherit: 0, dist: 0, inlinks: 0 };
    expect(priorityOf('value', model, 1, link, 3)).toBeCloseTo(213 / 25, 10);
    // a site that fetched nothing yet: a block with no pulls anywhere predicts the crawl's mean, not 0
    expect(priorityOf('value', model, 2, { ...link, cues: other }, 0)).toBeCloseTo(5, 10);
  });
});

const arm = (id: number, pulls: number, next: number | undefined, open = true): Arm => ({ id, pulls, rewardSum: 0, rewardMax: 0, rewards: [], open, group: null, next });

describe('pages policy', () => {
  const pick = (arms: Arm[]) => pages()({ arms, history: [], budget: null, random: () => 0 });
  it('takes the open site whose next page is worth most', () => {
    expect(pick([arm(1, 5, 2), arm(2, 9, 7), arm(3, 0, 50, false)])).toBe(2);
  });
  it('ties to the fewest pulls, then the lowest id; none open: null', () => {
    expect(pick([arm(1, 5, 3), arm(2, 4, 3), arm(3, 4, 3)])).toBe(2);
    expect(pick([arm(1, 5, undefined), arm(2, 4, undefined)])).toBe(2);
    expect(pick([arm(1, 0, 1, false)])).toBeNull();
  });
});

const page = (url: string, level: number, ext: number[], links: [number, string, string][]): GraphPage => ({
  url, level, status: 'done', http: 200, ext, links: links.map(([to, anchor, path]) => ({ to, anchor, cues: `p:${path}` })),
});

describe('the pages scheduler with --order value on a hand-made graph', () => {
  // Site a: its start page links a "ul.rel" block (r1 pays 3, r2 pays 3) and a "div.toc" block
  // (t1, t2 pay 0). Site b: its start page pays 1 and links one page paying 1.
  const web: WebGraph = {
    source: 'hand-made', maxLevel: 5,
    urls: Array.from({ length: 10 }, (_, i) => `x.test/${i}`), urlHost: Array(10).fill(0), hosts: ['x.test'],
    sites: [
      {
        host: 'a.test', group: null, pages: [
          page('http://a.test/', 0, [0], [[1, 't1', 'div.toc'], [2, 'r1', 'ul.rel'], [3, 't2', 'div.toc'], [4, 'r2', 'ul.rel']]),
          page('http://a.test/t1', 1, [], []),
          page('http://a.test/r1', 1, [1, 2, 3], []),
          page('http://a.test/t2', 1, [], []),
          page('http://a.test/r2', 1, [4, 5, 6], []),
        ],
      },
      {
        host: 'b.test', group: null, pages: [
          page('http://b.test/', 0, [7], [[1, 'more', 'div.nav']]),
          page('http://b.test/more', 1, [8], []),
        ],
      },
    ],
  };

  it('spends each pull on the page predicted best across sites, following the block that paid', () => {
    const r = replay(web, { policy: pages(), order: 'value', value: { explore: 0 }, budget: null });
    // Start pages first (a, then b: a tie goes to the lower id); then a's links and b's link all
    // predict their site's mean 1: a tie, a's first-discovered t1 goes and pays 0, so a's mean
    // falls to 1/2 and b's more (1) goes next; then r1 (a's mean, tie with t2, discovered first)
    // pays 3, and its block's sibling r2 is worth more than t2, discovered before it.
    expect(r.pulls.map((p) => [p.site, p.node, p.urls])).toEqual([[1, 0, 1], [2, 0, 1], [1, 1, 0], [2, 1, 1], [1, 2, 3], [1, 4, 3], [1, 3, 0]]);
  });
});

describe('cue prior learned offline', () => {
  // One training site: its start page links "changes" (pays 4) and "intro" (pays 0, and repeats the start page's URL).
  const train: WebGraph = {
    source: 'hand-made', maxLevel: 5,
    urls: ['x/0', 'x/1', 'x/2', 'x/3', 'x/4'], urlHost: [0, 0, 0, 0, 0], hosts: ['x'],
    sites: [{
      host: 't.test', group: null, pages: [
        { url: 'http://t.test/', level: 0, status: 'done', http: 200, ext: [0], links: [{ to: 1, anchor: 'Changes', cues: '' }, { to: 2, anchor: 'Intro', cues: '' }] },
        { url: 'http://t.test/changes.html', level: 1, status: 'done', http: 200, ext: [1, 2, 3, 4], links: [{ to: 2, anchor: 'again', cues: '' }] },
        { url: 'http://t.test/intro.html', level: 1, status: 'done', http: 200, ext: [0], links: [] },
      ],
    }],
  };

  it('counts each page once, under the cues of the first link to it, its reward new to the site', () => {
    const p = cuePrior(train);
    expect(p.mean).toBe(2); // (4 + 0) / 2 pages (the start page has no link to it)
    expect(p.cues.get('a:changes')).toEqual({ n: 1, sum: 4 });
    expect(p.cues.get('u:changes')).toEqual({ n: 1, sum: 4 });
    expect(p.cues.get('a:intro')).toEqual({ n: 1, sum: 0 });
    expect(p.cues.has('a:again')).toBe(false);
  });

  it('scales a new site\'s own mean by the cue\'s smoothed lift', () => {
    const model = new CueModel(cuePrior(train));
    model.learn(7, [], 3); // the new site's start page paid 3
    // lift of a:changes = ((4 + 3·2) / (1 + 3)) / 2 = 5/4; the best cue wins
    expect(model.predict(7, ['a:changes', 'a:intro'])).toBeCloseTo(3 * 1.25, 10);
    // a:intro's lift ((0 + 6) / 4) / 2 = 3/4 is below the site mean: the mean stands
    expect(model.predict(7, ['a:intro'])).toBe(3);
  });

  it('keeps only the kinds of cue asked for', () => {
    expect([...cuePrior(train, ['a']).cues.keys()].sort()).toEqual(['a:changes', 'a:intro']);
  });

  it('goes to a file and back unchanged; a file that is not one says what is wrong', () => {
    const p = cuePrior(train);
    const back = priorFromFile(JSON.stringify(priorToFile(p, 'test')));
    expect(back.mean).toBe(p.mean);
    expect(new Map([...back.cues].sort())).toEqual(new Map([...p.cues].sort()));
    expect(() => priorFromFile('{"cues":{}}')).toThrow('not a cue prior (no mean or cues)');
    expect(() => priorFromFile('{"mean":1,"cues":{"a:x":[1]}}')).toThrow('not a cue prior (cue "a:x")');
  });
});

describe('the shipped cue prior (data/cue-prior.json)', () => {
  it('holds only the kinds --order value reads, and a live crawl\'s value order uses it', () => {
    const p = shippedPrior();
    expect(p.mean).toBeGreaterThan(0);
    const kinds = new Set([...p.cues.keys()].map((c) => c.slice(0, c.indexOf(':'))));
    expect([...kinds].sort()).toEqual(['a', 'c', 'h', 'p', 'u'].filter((k) => !VALUE_DEFAULTS.drop!.includes(k)));
    expect(new CrawlOrder('value').value.prior).toBe(p);
    expect(new CrawlOrder('best-first').value.prior).toBeUndefined();
  });
});

describe('the value order\'s stored priorities', () => {
  it('are a page\'s value over its site\'s believed yield (at least 1), in quarter octaves, and go back in URLs a page, made optimistic', () => {
    expect(relativeValue(12, 4)).toBeCloseTo(2 ** 1.5, 12); // 3 times the mean: log2 1.58 rounds to 1.5
    expect(relativeValue(4, 4)).toBe(1);
    expect(relativeValue(4.3, 4)).toBe(1); // within an eighth of an octave of the mean: unchanged
    expect(relativeValue(0.5, 0.2)).toBeCloseTo(2 ** -1, 12); // a mean under 1 counts as 1
    expect(relativeValue(0, 3)).toBe(0);
    expect(absoluteValue(2, 5)).toBe(10);
    expect(absoluteValue(2, 7.5)).toBe(15); // made optimistic by the site's doubt
    expect(absoluteValue(2, 0.5)).toBe(1); // a site whose belief fell under one URL a page: its lift times its yield, not over its belief
    expect(absoluteValue(0, 3)).toBe(0);
  });

  it('of a pulled page\'s new links are what re-scoring gives them, from their cues alone, which are stored as the analysis made them', () => {
    const order = new CrawlOrder('value', null, { ...VALUE_DEFAULTS, prior: null });
    const page = { id: 1, siteId: 1, url: 'http://s/', level: 0 };
    order.learn(page, 2, undefined);
    order.learn({ ...page, id: 2, level: 1, anchor: 'v1', state: { cues: 'a:v1 p:ul.changes>li', cash: 0, inherit: 0, dist: 0, inlinks: 0 } }, 12, undefined);
    const links = [
      { url: 'http://s/changes/v2.html', anchor: 'v2', cues: 'a:v2 p:ul.changes>li', known: null },
      { url: 'http://s/guide/intro.html', anchor: 'intro guide', cues: undefined, known: null }, // no cues made: its URL and anchor give them
    ];
    const scored = order.children({ ...page, id: 3, level: 1 }, 12, null, links);
    expect(scored.map((s) => s.state.cues)).toEqual(['a:v2 p:ul.changes>li', 'a:intro a:guide']);
    scored.forEach((s, i) => expect(s.priority).toBe(order.prioritize(1, links[i]!.url, links[i]!.anchor, s.state)));
    expect(scored[0]!.priority).toBeGreaterThan(scored[1]!.priority); // a sibling of the block that paid
  });

  it('read each cue once per site while the model stays, and follow it when it learns', () => {
    const model = new CueModel();
    model.learn(1, [], 2);
    model.learn(1, ['a:v1', 'p:ul.changes>li'], 12);
    const value = siteValues(model, 1, { explore: 1 });
    const links = [['a:v2', 'p:ul.changes>li'], ['a:v1', 'p:ul.changes>li'], ['a:intro', 'p:div.toc>li'], ['u:changes', 'a:v3', 'p:ul.changes>li'], []];
    for (const l of links) expect(value(l)).toBe(linkValue(model, 1, l, { explore: 1 }));
    const plain = siteValues(model, 1, { explore: 0 });
    expect(plain(links[0]!)).toBeGreaterThan(plain(links[2]!)); // the block that paid, over one never tried
    expect(value(links[2]!)).toBeGreaterThan(plain(links[2]!)); // made optimistic
    // a kind left out is not read, a block among them neither
    const anchors = siteValues(model, 1, { explore: 1, drop: ['p'] });
    expect(anchors(links[0]!)).toBe(anchors(links[2]!));

    const order = new CrawlOrder('value', null, { ...VALUE_DEFAULTS, prior: null });
    const page = { id: 1, siteId: 1, url: 'http://s/', level: 0 };
    order.learn(page, 2, undefined);
    const state = { cues: 'a:v2 p:ul.changes>li', cash: 0, inherit: 0, dist: 0, inlinks: 0 };
    const before = order.prioritize(1, '', '', state);
    expect(order.prioritize(1, '', '', state)).toBe(before);
    order.learn({ ...page, id: 2, level: 1, anchor: 'v1', state: { ...state, cues: 'a:v1 p:ul.changes>li' } }, 40, undefined);
    expect(order.prioritize(1, '', '', state)).toBeGreaterThan(before); // its block just paid
  });

  it('are scored again every 25 pulls of the site and after a pull that paid; a queue over k - 1 spans of 2,000 pages whole k times less often, and not after a pull that paid', () => {
    const asked: number[] = [];
    const queue = (n: number) => (atMost: number) => (asked.push(atMost), Math.min(n, atMost));
    expect([24, 25, 26, 50].map((p) => rescoreDue(p, false, queue(100)))).toEqual([null, 'whole', null, 'whole']);
    expect(asked).toEqual([Infinity, Infinity]); // counted only on a pull that could be due
    expect([24, 25, 26].map((p) => rescoreDue(p, true, queue(100)))).toEqual(['paid', 'whole', 'paid']);
    expect(asked.slice(2)).toEqual([2001, Infinity, 2001]); // a pull that paid counts no further than the span
    expect([25, 50, 75, 100].map((p) => rescoreDue(p, false, queue(2000)))).toEqual(['whole', 'whole', 'whole', 'whole']);
    expect([24, 26].map((p) => rescoreDue(p, true, queue(2000)))).toEqual(['paid', 'paid']);
    expect([25, 50, 75, 100].map((p) => rescoreDue(p, false, queue(5_000)))).toEqual([null, null, 'whole', null]); // k = 3
    expect([25, 26, 75].map((p) => rescoreDue(p, true, queue(5_000)))).toEqual([null, null, 'whole']);
    expect(rescoreDue(0, false, queue(0))).toBe(null);
  });

  it('are scored again where they share a cue with a page the model promoted that then paid under half its value', () => {
    const order = new CrawlOrder('value', null, { explore: 0, drop: ['u', 'c', 'h'], prior: null });
    const queue = () => 100;
    const page = (id: number, anchor: string, priority: number): FrontierPage => ({
      id, siteId: 1, url: `http://s/changes/${anchor}.html`, level: 1, anchor, priority, state: { cues: `a:${anchor} p:ul.changes>li`, cash: 0, inherit: 0, dist: 0, inlinks: 0 },
    });
    const pull = (p: FrontierPage, reward: number) => (order.learn(p, reward, undefined), order.rescoreAfter(p, reward, queue));
    expect(pull({ id: 1, siteId: 1, url: 'http://s/', level: 0, priority: START }, 2)).toBe(null); // the start page: nothing promoted it
    // valued 4 times the site's belief (under 1 URL a page: counts as 1), it gave nothing: its cues fell
    expect(pull(page(2, 'v1', 4), 0)).toEqual({ cues: ['a:v1', 'p:ul.changes>li'], above: PROMOTE }); // the pages they promoted
    expect(pull(page(3, 'v2', 4), 3)).toBe(null); // over half its value
    expect(pull(page(4, 'v3', PROMOTE), 0)).toBe(null); // not promoted: it told the model nothing new
  });

  it('are scored again for all scored pages, the unscored ones, or the pages that share a cue (pages without stored cues at the next whole pass)', () => {
    expect(rescores('all', 3, 'a:x')).toBe(true);
    expect(rescores('unscored', 3, 'a:x')).toBe(false);
    expect(rescores('unscored', null, 'a:x')).toBe(true);
    const which = { cues: ['p:ul.rel', 'a:news'] };
    expect(rescores(which, 1, 'a:intro p:ul.rel')).toBe(true);
    expect(rescores(which, 1, 'a:newsletter p:ul.related')).toBe(false); // whole cues only
    expect(rescores(which, 1, null)).toBe(false); // no stored cues: the next whole pass
    expect(rescores('all', 1, null)).toBe(true);
    expect(rescores('all', null, 'a:x')).toBe(false); // a page without a priority waits for the 'unscored' pass
    expect(rescores(which, null, null)).toBe(false);
  });
});
