// Issue 12 (first part): best-first order inside a site — the cue model's arithmetic, and a real
// crawl that finds a hub page early, keeps the level cap and resumes exactly.
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../fixtures/listen.js';
import { linkCues, MAX_CUES } from '../src/order/cues.js';
import { CueModel } from '../src/order/model.js';
import { linkPriority, PROMOTE } from '../src/order/priority.js';
import { beebot, tempDir } from './helpers/cli.js';

describe('link cues', () => {
  it('are the words of the URL path (file name without .html) and of the anchor text', () => {
    expect(linkCues('http://h.org/docs/3.11/whatsnew/changelog.html?x=1#y', 'Changelog of v3.11')).toEqual([
      'u:docs', 'u:whatsnew', 'u:changelog', 'a:changelog', 'a:of', 'a:v3',
    ]);
    expect(linkCues('http://h.org/', '')).toEqual([]);
    expect(linkCues('http://h.org/' + Array.from({ length: 20 }, (_, i) => `w${'x'.repeat(i + 1)}/`).join(''), 'more words').length).toBe(MAX_CUES);
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
    expect(linkPriority(m, 2, 'http://h/links.html', '')).toBe(m.predict(2, ['u:links'])); // 8.25 > 2 x 1
    expect(linkPriority(m, 1, 'http://h/news/', '')).toBe(0); // 10 <= 2 x 10
    expect(linkPriority(m, 1, 'http://h/links.html', '')).toBe(0); // 18.75 <= 20: not yet enough evidence
    m.learn(1, ['u:links'], 40);
    for (let i = 0; i < 5; i++) m.learn(1, ['u:news'], 0);
    // site mean 70 / 9; u:links: prior (70 + 3 x 70/9) / 5, then (70 + 3 x prior) / 5 = 25.2 > 2 x 7.8
    const prior = (70 + (3 * 70) / 9) / 5;
    expect(linkPriority(m, 1, 'http://h/links.html', '')).toBeCloseTo((70 + 3 * prior) / 5, 10);
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

let server: Server;
let port: number;
let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  tmp = tempDir();
  server = createServer((req, res) => {
    const body = pages[new URL(req.url ?? '/', 'http://x').pathname];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${body}</body></html>`);
  });
  port = await listenLoopback(server);
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
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
    const bfs = await crawlOrder('bfs');
    const best = await crawlOrder('best', '--order', 'best-first');
    const at = (o: string[]) => o.indexOf('/more/hub/links.html');
    expect(at(bfs.order)).toBe(bfs.order.length - 3); // level 2, after every level-2 page of the dull sections
    expect(at(best.order)).toBeLessThan(at(bfs.order) - 10);
    expect(new Set(best.order)).toEqual(new Set(bfs.order)); // the same pages in the end
    expect([best.fetchedBeyond, best.unfetchedBeyond]).toEqual([0, 1]); // /more/deep/a/b/ is level 4
    expect(PROMOTE).toBe(2);
    expect(JSON.parse((await beebot(['config', 'get', 'order', '--json'], { db: best.db })).stdout)).toBe('best-first');
  });

  it('resumes exactly: a crawl stopped after each page continues in the same order', async () => {
    const whole = await crawlOrder('whole', '--order', 'best-first');
    const db = join(tmp.dir, 'steps.db');
    await beebot(['seeds', 'add', `http://site.test:${port}/`], { db });
    for (let n = 1; n <= whole.order.length; n += 4) {
      const r = await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--max-level', '3', '--order', 'best-first', '--budget', String(n), '--resolve', `site.test:${port}:127.0.0.1`], { db });
      expect(r.code, r.stderr).toBe(0);
    }
    await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--max-level', '3', '--budget', 'none', '--resolve', `site.test:${port}:127.0.0.1`], { db });
    const d = new Database(db, { readonly: true });
    const order = d.prepare('SELECT p.url FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq').pluck().all().map((u) => new URL(String(u)).pathname);
    d.close();
    expect(order).toEqual(whole.order);
  });
});
