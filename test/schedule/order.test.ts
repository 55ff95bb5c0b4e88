// Ordering inside a site — the cues, the cue model, OTIE cash, Shark-Search, tunneling
// and the template rule on hand-made pages; and real crawls that find a hub page early, keep the
// level cap and resume exactly.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractLinks } from '../../src/page/extract.js';
import { splitCash } from '../../src/schedule/links/cash.js';
import { childStates, FLOOR } from '../../src/schedule/links/children.js';
import { linkCues, MAX_CUES } from '../../src/schedule/links/cues.js';
import { CueModel } from '../../src/schedule/links/model.js';
import { migrations } from '../../src/db/migrations.js';
import { priorityOf, PROMOTE, type LinkState } from '../../src/schedule/links/priority.js';
import { RELEVANT, yieldRelevance } from '../../src/schedule/links/relevance.js';
import { DECAY, inherited, neighbourhood, potential } from '../../src/schedule/links/shark.js';
import { DISCOUNT, isTemplate } from '../../src/schedule/links/template.js';
import { beyondCutoff, childDistance, CUTOFF } from '../../src/schedule/links/tunnel.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { servePages } from '../helpers/page-server.js';

describe('link cues', () => {
  it('are the words of the URL path (file name without .html) and of the anchor text', () => {
    expect(linkCues('http://h.org/docs/3.11/whatsnew/changelog.html?x=1#y', 'Changelog of v3.11')).toEqual([
      'u:docs', 'u:whatsnew', 'u:changelog', 'a:changelog', 'a:of', 'a:v3',
    ]);
    expect(linkCues('http://h.org/', '')).toEqual([]);
    const many = (p: string) => Array.from({ length: 20 }, (_, i) => `${p}${'x'.repeat(i + 1)}`).join(' ');
    // each kind has its own cap: a long URL cannot crowd out the anchor
    const all = linkCues('http://h.org/' + many('w').replace(/ /g, '/'), many('a'), { around: many('c'), title: many('t'), path: 'div.related>ul>li' });
    expect(all.length).toBe(MAX_CUES);
    expect(all.filter((c) => c.startsWith('a:')).length).toBe(6);
    expect(all.at(-1)).toBe('p:div.related>ul>li');
  });

  it('are words of letters and digits that start with a letter, in any script, lowercased', () => {
    const anchor = (text: string) => linkCues('http://h.org/', text, {}, ['a']);
    expect(anchor('x 3D 1ab a1b2 Über-Änderungen naïve 42')).toEqual(['a:ab', 'a:a1b2', 'a:über', 'a:änderungen', 'a:naïve']);
    expect(anchor('Release NOTES_v2, x1')).toEqual(['a:release', 'a:notes', 'a:v2', 'a:x1']);
    expect(anchor('Справка по API ٣٤ δοκιμή2')).toEqual(['a:справка', 'a:по', 'a:api', 'a:δοκιμή2']);
    expect(anchor('\u212Aelvin')).toEqual(['a:kelvin']); // the Kelvin sign lowercases to an ASCII k
  });

  it('come with the link\'s tag path, the text before it and the page title when read with context', () => {
    const html = `<html><head><title>Release notes</title></head><body><div class="nav main"><a href="/a">A</a></div>
      <div class="related"><ul><li>See also: <a href="/b">B</a></li></ul></div></body></html>`;
    const { links, title } = extractLinks(html, { context: true });
    expect(title).toBe('Release notes');
    expect(links.map((l) => [l.path, l.around])).toEqual([['html>body>div.nav', ''], ['div.related>ul>li', 'See also:']]);
    expect(linkCues('http://h.org/links', 'B', { path: links[1]!.path, around: links[1]!.around, title: title ?? undefined })).toEqual([
      'u:links', 'c:see', 'c:also', 'h:release', 'h:notes', 'p:div.related>ul>li',
    ]);
    // without the option nothing changes (breadth-first crawls pay nothing for it)
    expect(extractLinks(html).links.map((l) => l.path)).toEqual([undefined, undefined]);
    // an element's first class, whatever the white space around it; a link near the top has a shorter path
    const shallow = `<a href="/x">X</a><p class=" \tnote\nwide "><a href="/y">Y</a></p><div class=""><b class="  "><a href="/z">Z</a></b></div>`;
    expect(extractLinks(shallow, { context: true }).links.map((l) => l.path)).toEqual(['', 'p.note', 'div>b']);
  });
});

const state = (over: Partial<LinkState> = {}): LinkState => ({ cues: [], cash: 0, inherit: 0, dist: 0, inlinks: 0, ...over });

describe('the article\'s arithmetic on hand-made pages', () => {
  it('OTIE cash: a fetched page splits its cash by weight, evenly when no link is preferred, and none is lost', () => {
    expect(splitCash(1, [3, 1])).toEqual([0.75, 0.25]);
    expect(splitCash(0.75, [0, 0, 0])).toEqual([0.25, 0.25, 0.25]);
    expect(splitCash(1, [])).toEqual([]);
    // along a crawl: the start page's cash, split twice, still sums to 1
    const first = childStates({ state: state({ cash: 1 }), relevance: 0 }, [0.9, 0.1, 0.4].map((value) => ({ cues: [], value, known: null })), 1);
    const second = childStates({ state: first[0]!, relevance: 0.7 }, [0.2, 0.3].map((value) => ({ cues: [], value, known: null })), 2);
    expect(first[0]!.cash).toBeCloseTo((0.9 + FLOOR) / (1.4 + 3 * FLOOR), 12);
    expect(second[0]!.cash + second[1]!.cash + first[1]!.cash + first[2]!.cash).toBeCloseTo(1, 12);
  });

  it('template discount: a link on most of the site\'s fetched pages gets a tenth of the weight, once the site has 10 pages', () => {
    expect([isTemplate(5, 10), isTemplate(4, 10), isTemplate(5, 9)]).toEqual([true, false, false]);
    const known = state({ cash: 0.5, inlinks: 9 }); // on 10 of 20 pages with this one
    const [nav, content] = childStates({ state: state({ cash: 1 }), relevance: 0 }, [
      { cues: [], value: 0.5, known },
      { cues: [], value: 0.5, known: null },
    ], 20);
    expect(nav!.cash - 0.5).toBeCloseTo(DISCOUNT / (1 + DISCOUNT), 12);
    expect(content!.cash).toBeCloseTo(1 / (1 + DISCOUNT), 12);
    // and it is never promoted, whatever its words predict
    const m = new CueModel();
    for (let i = 0; i < 20; i++) m.learn(1, i === 0 ? ['u:links'] : ['u:dull'], i === 0 ? 100 : 0);
    expect(priorityOf('best-first', m, 1, state({ cues: ['u:links'], inlinks: 2 }), 20)).toBeGreaterThan(0);
    expect(priorityOf('best-first', m, 1, state({ cues: ['u:links'], inlinks: 10 }), 20)).toBe(0);
  });

  it('Shark-Search: a child inherits alpha x its parent\'s relevance, or alpha x what a dull parent inherited; potential mixes in the neighbourhood', () => {
    expect(inherited(0.8, 0.1)).toBe(DECAY * 0.8);
    expect(inherited(0, 0.4)).toBe(DECAY * 0.4);
    expect(inherited(0, inherited(0, inherited(0.8, 0)))).toBeCloseTo(0.8 * DECAY ** 3, 12); // fades along dull pages
    expect(potential(0.4, 0.2)).toBeCloseTo(0.3, 12);
    expect(neighbourhood(3, 1)).toBe(0.75);
    expect([yieldRelevance(0, 5), yieldRelevance(5, 5), yieldRelevance(2, 0)]).toEqual([0, 0.5, 2 / 3]);
    // a page already queued keeps the best inheritance and the shortest tunnel, and adds up cash
    const [merged] = childStates({ state: state({ cash: 0.2, inherit: 0.1, dist: 3 }), relevance: 0.9 }, [{ cues: [], value: 0, known: state({ cash: 0.3, inherit: 0.2, dist: 2, inlinks: 4 }) }], 5);
    expect(merged).toEqual({ cues: [], cash: 0.5, inherit: DECAY * 0.9, dist: 0, inlinks: 5 });
  });

  it('tunneling: the distance from the last relevant page grows by 1 to 2 per dull page, faster the duller; past the cutoff a link waits', () => {
    expect(childDistance(3, RELEVANT)).toBe(0);
    expect(childDistance(0, 0)).toBe(2);
    expect(childDistance(0, RELEVANT / 2)).toBe(1.5);
    // relevant -> dull -> dull -> hub: the hub is in reach, its dull child is not
    const hub = childDistance(childDistance(childDistance(0, 0.9), 0), 0);
    expect([hub, beyondCutoff(hub), beyondCutoff(childDistance(hub, 0)), CUTOFF]).toEqual([4, false, true, 4]);
    const m = new CueModel();
    m.learn(1, ['u:x'], 1);
    expect(priorityOf('best-first', m, 1, state({ dist: 4 }), 1)).toBe(0);
    expect(priorityOf('best-first', m, 1, state({ dist: 6 }), 1)).toBe(-1);
    // the baselines: plain = the prediction, otie = cash, shark-search = potential
    expect(priorityOf('plain', m, 1, state({ cues: ['u:y'] }), 1)).toBe(1);
    expect(priorityOf('otie', m, 1, state({ cash: 0.25 }), 1)).toBe(0.25);
    expect(priorityOf('shark-search', m, 1, state({ inherit: 0.4 }), 1)).toBeCloseTo(potential(0.4, 0.5), 12);
  });
});

describe('cue model', () => {
  it('predicts the best smoothed mean of a link\'s cues: the site mean for unknown cues, pulled towards it with few pages', () => {
    const m = new CueModel();
    expect(m.predict(1, ['u:links'])).toBe(0);
    m.learn(1, ['u:news'], 0);
    m.learn(1, ['u:news'], 0);
    m.learn(1, ['u:links'], 30);
    // site mean 10; u:links: (30 + 3 x prior) / (1 + 3), prior = global u:links (30 + 3 x 10) / 4 = 15 -> (30 + 45) / 4 = 18.75
    expect(m.predict(1, ['u:links'])).toBe(18.75);
    // u:news: prior (0 + 30) / 5 = 6; (0 + 18) / 5 = 3.6; an unknown cue: the site mean 10
    expect(m.predict(1, ['u:news'])).toBe(10);
    expect(m.predict(1, ['u:news', 'u:links'])).toBe(18.75);
    // a cue that paid on site 1 is tried first on site 2 (global prior), against site 2's mean 1
    m.learn(2, ['u:about'], 1);
    expect(m.predict(2, ['u:links'])).toBeCloseTo((30 + 3 * 1) / 4, 10);
    expect(m.predict(2, ['u:links'])).toBeGreaterThan(m.predict(2, ['u:other']));
    // promoted only above twice the site's mean; else 0 (breadth-first order)
    const best = (site: number, url: string) => priorityOf('best-first', m, site, state({ cues: linkCues(url, '') }), m.sitePages(site));
    expect(best(2, 'http://h/links.html')).toBe(m.predict(2, ['u:links'])); // 8.25 > 2 x 1
    expect(best(1, 'http://h/news/')).toBe(0); // 10 <= 2 x 10
    expect(best(1, 'http://h/links.html')).toBe(0); // 18.75 <= 20: not yet enough evidence
    m.learn(1, ['u:links'], 40);
    for (let i = 0; i < 5; i++) m.learn(1, ['u:news'], 0);
    // site mean 70 / 9; u:links: prior (70 + 3 x 70/9) / 5, then (70 + 3 x prior) / 5 = 25.2 > 2 x 7.8
    const prior = (70 + (3 * 70) / 9) / 5;
    expect(best(1, 'http://h/links.html')).toBeCloseTo((70 + 3 * prior) / 5, 10);
  });
});

// site.test: a start page with 12 dull sections (each links 2 dull pages) and, last, /hub/ behind
// /more/ (level 2); /about/ pays 3 new links, /hub/links.html pays 40. Best-first learns from the
// 'links' pages that pay and takes the hub pages before the dull ones.
const dull = Array.from({ length: 12 }, (_, i) => `sec${i}`);
const pages: Record<string, string> = {
  '/': [...dull.map((s) => `<a href="/${s}/">${s}</a>`), '<a href="/about/">about</a>', '<a href="/more/">more</a>'].join(' '),
  '/about/': ['<a href="/about/links.html">links</a>', ...[1, 2, 3].map((i) => `<a href="https://a${i}.example/">a</a>`)].join(' '),
  '/about/links.html': Array.from({ length: 20 }, (_, i) => `<a href="https://l${i}.example/">l</a>`).join(' '),
  '/more/': '<a href="/more/hub/links.html">links</a> <a href="/more/deep/">deeper</a>',
  '/more/hub/links.html': Array.from({ length: 40 }, (_, i) => `<a href="https://h${i}.example/">h</a>`).join(' '),
  '/more/deep/': '<a href="/more/deep/a/">a</a>',
  '/more/deep/a/': '<a href="/more/deep/a/b/">b</a>',
  '/more/deep/a/b/': 'beyond the cap',
};
for (const s of dull) {
  pages[`/${s}/`] = `<a href="/${s}/p1.html">p1</a> <a href="/${s}/p2.html">p2</a>`;
  pages[`/${s}/p1.html`] = pages[`/${s}/p2.html`] = 'nothing';
}

let site: Awaited<ReturnType<typeof servePages>>;
let port: number;
let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  tmp = tempDir();
  site = await servePages(pages, (b) => `<html><body>${b}</body></html>`);
  port = site.port;
});
afterAll(async () => {
  await site.close();
  tmp.cleanup();
});

const crawlOrder = async (name: string, ...args: string[]) => {
  const db = join(tmp.dir, `${name}.db`);
  await beebot(['seeds', 'add', `http://site.test:${port}/`], { db });
  const r = await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--max-level', '3', '--resolve', `site.test:${port}:127.0.0.1`, ...args], { db });
  expect(r.code, r.stderr).toBe(0);
  const d = new Database(db, { readonly: true });
  try {
    return {
      db,
      order: d.prepare('SELECT p.url FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq').pluck().all().map((u) => new URL(String(u)).pathname),
      unfetchedBeyond: d.prepare("SELECT count(*) FROM pages WHERE level > 3 AND status = 'queued'").pluck().get(),
      fetchedBeyond: d.prepare("SELECT count(*) FROM pages p JOIN fetches f ON f.page_id = p.id WHERE p.level > 3").pluck().get(),
    };
  } finally {
    d.close();
  }
};

describe('--order best-first', () => {
  it('reaches the hub page long before breadth-first does, and keeps the level cap', async () => {
    const bfs = await crawlOrder('bfs', '--order', 'bfs');
    const best = await crawlOrder('best', '--order', 'best-first');
    const at = (o: string[]) => o.indexOf('/more/hub/links.html');
    expect(at(bfs.order)).toBe(bfs.order.length - 3); // level 2, after every level-2 page of the dull sections
    expect(at(best.order)).toBeLessThan(at(bfs.order) - 10);
    expect(new Set(best.order)).toEqual(new Set(bfs.order)); // the same pages in the end
    expect([best.fetchedBeyond, best.unfetchedBeyond]).toEqual([0, 1]); // /more/deep/a/b/ is level 4
    expect(PROMOTE).toBe(2);
    expect(JSON.parse((await beebot(['config', 'get', 'order', '--json'], { db: best.db })).stdout)).toBe('best-first');
  });

  it('--order value reads each link\'s context (its tag path, as SB-CLASSIFIER groups links); best-first does not', async () => {
    const paths = async (name: string) => {
      const { db } = await crawlOrder(`ctx-${name}`, '--order', name, '--budget', '3');
      const d = new Database(db, { readonly: true });
      try {
        return d.prepare("SELECT count(*) FROM pages WHERE cues LIKE '%p:%'").pluck().get();
      } finally {
        d.close();
      }
    };
    expect(await paths('value')).toBeGreaterThan(0);
    expect(await paths('best-first')).toBe(0);
  });

  it('the default is --order value under the pages scheduler; any other order keeps rr-ucb; a database crawled before keeps bfs', async () => {
    const get = async (db: string, key: string) => JSON.parse((await beebot(['config', 'get', key, '--json'], { db })).stdout) as string;
    const fresh = join(tmp.dir, 'defaults.db');
    await beebot(['seeds', 'add', `http://site.test:${port}/`], { db: fresh });
    expect([await get(fresh, 'order'), await get(fresh, 'policy')]).toEqual(['value', 'pages']);
    expect((await beebot(['config', 'set', 'order', 'best-first'], { db: fresh })).code).toBe(0);
    expect([await get(fresh, 'order'), await get(fresh, 'policy')]).toEqual(['best-first', 'rr-ucb']);
    // As an older beebot left a crawled database: no order saved, the steps from the order's on not applied.
    const { db } = await crawlOrder('before-value', '--budget', '3');
    const d = new Database(db);
    d.prepare("DELETE FROM settings WHERE key = 'order'").run();
    for (const c of ['sitemap_files', 'sitemap_problems']) d.exec(`ALTER TABLE sites DROP COLUMN ${c}`);
    d.exec('DROP TABLE queued_levels');
    d.pragma(`user_version = ${migrations.findIndex((m) => m.includes("'order', 'bfs'"))}`);
    d.close();
    expect([await get(db, 'order'), await get(db, 'policy')]).toEqual(['bfs', 'rr-ucb']);
  });

  // 'default': no --order or --policy at all (value with the shipped cue prior, the pages scheduler)
  it.each<[string, string | undefined]>([['best-first', undefined], ['otie', undefined], ['shark-search', undefined], ['value', 'pages'], ['default', undefined]])('resumes exactly (%s): a crawl stopped every few pages continues in the same order', async (name, policy) => {
    const by = [...(name === 'default' ? [] : ['--order', name]), ...(policy ? ['--policy', policy] : [])];
    const whole = await crawlOrder(`whole-${name}`, ...by);
    const db = join(tmp.dir, `steps-${name}.db`);
    await beebot(['seeds', 'add', `http://site.test:${port}/`], { db });
    for (let n = 1; n <= whole.order.length; n += 4) {
      const r = await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--max-level', '3', ...by, '--budget', String(n), '--resolve', `site.test:${port}:127.0.0.1`], { db });
      expect(r.code, r.stderr).toBe(0);
    }
    await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--max-level', '3', '--budget', 'none', '--resolve', `site.test:${port}:127.0.0.1`], { db });
    const d = new Database(db, { readonly: true });
    const order = d.prepare('SELECT p.url FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq').pluck().all().map((u) => new URL(String(u)).pathname);
    d.close();
    expect(order).toEqual(whole.order);
  });
});
