// What a pull earns (reward modes), one page one pull (scheme folding, files skipped),
// on hand-made pages crawled by the real CLI, and the same rules at the store and in the trace.
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { DeadEnds, linkClasses, pullOutcome } from '../../src/schedule/dead-ends.js';
import { queuedFate } from '../../src/page/link-fate.js';
import { defaultSkipExtensions, skippedExtension } from '../../src/url/file-links.js';
import { urlKey } from '../../src/url/url.js';
import { PullWriter } from '../../src/store/pull-writer.js';
import type { PullResult } from '../../src/pull/pull-record.js';
import { openDb } from '../../src/db/db.js';
import { migrations } from '../../src/db/migrations.js';
import { insertSites } from '../../src/store/sites.js';
import { beebot, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let server: Server;
let port: number;
const requested: string[] = [];

// site.test: four pages in a chain, each with the same footer link (a template) and one link of
// its own; /b also links a second URL on the footer's host, /c a new host. The start page links
// /a twice, once as http:// and once as https:// (one page: fetched once, by the first spelling),
// and a PDF and a .py source (files: stored, never fetched).
const FOOTER = '<a href="https://social.example/beebot">follow us</a>';
const pages: Record<string, string> = {
  '/': `<a href="/a">a</a> <a href="https://site.test:PORT/a">a again</a> <a href="/report.pdf">pdf</a> <a href="/src/x.py">src</a>
        <a href="https://one.example/">one</a> ${FOOTER}`,
  '/a': `<a href="/b">b</a> <a href="https://two.example/">two</a> ${FOOTER}`,
  '/b': `<a href="/c">c</a> <a href="https://social.example/other">other</a> ${FOOTER}`,
  '/c': `<a href="https://three.example/x">three</a> <a href="https://two.example/">two again</a> ${FOOTER}`,
  // dead.test: translations that were never built (404), after the English page
  '/docs/': ['index.html', 'a.ja.html', 'b.ja.html', 'c.ja.html', 'd.ja.html', 'e.ja.html'].map((f) => `<a href="/docs/m/${f}">${f}</a>`).join(' '),
  '/docs/m/index.html': 'English',
};

beforeAll(async () => {
  tmp = tempDir();
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requested.push(path);
    const body = pages[path];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body>${body.replace('PORT', String(port))}</body></html>`);
  });
  port = await listenLoopback(server);
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  tmp.cleanup();
});

async function crawlSite(name: string, ...args: string[]) {
  const db = join(tmp.dir, `${name}.db`);
  expect((await beebot(['seeds', 'add', `http://site.test:${port}/`, '--short', 'site'], { db })).code).toBe(0);
  const r = await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--resolve', `site.test:${port}:127.0.0.1`, ...args], { db });
  expect(r.code, r.stderr).toBe(0);
  return { db, r };
}

const rows = (db: string, sql: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).raw().all();
  } finally {
    d.close();
  }
};

describe('reward modes on hand-made pages', () => {
  // crawl order: /, /a, /b, /c (breadth-first; one page per level)
  it('urls: the footer link pays once; pairs: on every page; hosts: new outside hosts', async () => {
    requested.length = 0;
    const { db, r } = await crawlSite('urls');
    expect(rows(db, 'SELECT reward_urls, reward_hosts, reward_pairs, reward FROM fetches ORDER BY seq')).toEqual([
      [2, 2, 2, 2], // one.example, social.example/beebot
      [1, 1, 2, 1], // two.example (new); the footer again: a pair, not a URL
      [1, 0, 2, 1], // social.example/other: a new URL on a known host
      [1, 1, 3, 1], // three.example; two.example again (known to the site)
    ]);
    // one page, one pull: /a fetched once although linked under both schemes; the files never
    expect(requested.filter((p) => p !== '/robots.txt')).toEqual(['/', '/a', '/b', '/c']);
    expect(rows(db, "SELECT url FROM pages WHERE key LIKE '%/a'")).toEqual([[`http://site.test:${port}/a`]]);
    expect(rows(db, "SELECT url, note FROM pages WHERE status = 'file' ORDER BY id")).toEqual([
      [`http://site.test:${port}/report.pdf`, 'pdf'], [`http://site.test:${port}/src/x.py`, 'py'],
    ]);
    // what the user counts, in the summary and in status
    expect(r.stdout).toMatch(/; counting new external URLs$/m);
    expect(r.stdout).toMatch(/new to their site: 5 external URLs, 4 outside hosts; new \(page, external URL\) pairs: 9/);
    expect(r.stdout).toMatch(/5 distinct external URLs, 4 outside hosts/);
    const st = JSON.parse((await beebot(['status', '--json'], { db })).stdout);
    expect(st.reward).toBe('urls');
    expect(st.sites[0]).toMatchObject({ external: 9, external_urls: 5, external_hosts: 4, files: 2, reward_sum: 5, pages_fetched: 4 });
    expect(st.totals).toMatchObject({ external: 9, external_urls: 5, external_hosts: 4, files: 2 });
  });

  it('pairs and hosts drive the sums when chosen; the trace carries all three for simulate --reward', async () => {
    const { db } = await crawlSite('pairs', '--reward', 'pairs');
    expect(rows(db, 'SELECT reward FROM fetches ORDER BY seq').flat()).toEqual([2, 2, 2, 3]);
    expect(JSON.parse((await beebot(['status', '--json'], { db })).stdout).sites[0].reward_sum).toBe(9);
    const trace = JSON.parse((await beebot(['trace', 'export', '-'], { db })).stdout);
    expect(trace.reward).toBe('pairs');
    expect(trace.sites[0]).toMatchObject({ rewards: [2, 2, 2, 3], urls: [2, 1, 1, 1], hosts: [2, 1, 0, 1], pairs: [2, 2, 2, 3], levels: [0, 1, 2, 3] });
    expect(trace.sites[0].statuses).toEqual(['done', 'done', 'done', 'done']);
    const file = join(tmp.dir, 'trace.json');
    expect((await beebot(['trace', 'export', file], { db })).code).toBe(0);
    for (const [mode, total] of [['urls', 5], ['hosts', 4], ['pairs', 9]] as const) {
      const sim = await beebot(['simulate', '--trace', file, '--reward', mode, '--budget', '4', '--policies', 'round-robin', '--json'], { db });
      expect(sim.code, sim.stderr).toBe(0);
      expect(JSON.parse(sim.stdout).rows[0].total, mode).toBe(total);
    }

    // a later run under another mode recomputes the sums from the stored pulls
    expect((await beebot(['crawl', '--reward', 'hosts', '--delay', '0'], { db })).code).toBe(0);
    expect(JSON.parse((await beebot(['status', '--json'], { db })).stdout)).toMatchObject({ reward: 'hosts', sites: [{ reward_sum: 4 }] });
  });

  it('stops pulling a class of links that keeps answering 404 (dead-end-after), and counts them in status', async () => {
    requested.length = 0;
    const db = join(tmp.dir, 'dead.db');
    await beebot(['seeds', 'add', `http://dead.test:${port}/docs/`], { db });
    const r = await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--resolve', `dead.test:${port}:127.0.0.1`], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(requested.filter((p) => p.startsWith('/docs/'))).toEqual(['/docs/', '/docs/m/index.html', '/docs/m/a.ja.html', '/docs/m/b.ja.html', '/docs/m/c.ja.html']);
    expect(rows(db, "SELECT url, note FROM pages WHERE status = 'skipped' ORDER BY id")).toEqual([
      [`http://dead.test:${port}/docs/m/d.ja.html`, 'dead end: 3 failed pulls and no page in *.ja.html'],
      [`http://dead.test:${port}/docs/m/e.ja.html`, 'dead end: 3 failed pulls and no page in *.ja.html'],
    ]);
    const st = JSON.parse((await beebot(['status', '--json'], { db })).stdout);
    expect(st.sites[0]).toMatchObject({ state: 'exhausted', skipped: 2, pages_fetched: 5 });
  });

  it('skip-extensions none fetches every link', async () => {
    requested.length = 0;
    const db = join(tmp.dir, 'all.db');
    await beebot(['config', 'set', 'skip-extensions', 'none'], { db });
    await crawlSite('all');
    expect(requested).toEqual(expect.arrayContaining(['/report.pdf', '/src/x.py']));
  });
});

describe('skippedExtension', () => {
  const skip = new Set(defaultSkipExtensions);
  it('reads the last path segment only, case-insensitively, double extensions first', () => {
    expect(skippedExtension('http://h/a/Report.PDF', skip)).toBe('pdf');
    expect(skippedExtension('http://h/dist/x-1.0.tar.gz?download', skip)).toBe('tar.gz');
    expect(skippedExtension('http://h/notes.txt#top', skip)).toBe('txt');
    expect(skippedExtension('http://h/a.zip/index.html', skip)).toBeNull();
    expect(skippedExtension('http://h/page.html', skip)).toBeNull();
    expect(skippedExtension('http://h/page?file=x.pdf', skip)).toBeNull();
    expect(skippedExtension('http://h/.pdf', skip)).toBeNull(); // a dot file, not an extension
    expect(skippedExtension('http://h.pdf', skip)).toBeNull(); // the host is not a file name
    expect(skippedExtension('http://h/x.pdf', new Set())).toBeNull();
  });
  it('covers what documentation sites link by the thousand', () => {
    for (const e of ['py', 'ipynb', 'txt', 'rst', 'md', 'zip', 'png', 'pdf']) expect(skip.has(e), e).toBe(true);
  });
});

describe('schema 5 upgrade', () => {
  it('rekeys https as http, merges a page\'s two spellings of one link, fills hosts and keeps counting pairs', () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'old.db');
      const old = new Database(file);
      old.function('beebot_dir', (_key: unknown) => 0);
      old.function('beebot_fp', (_key: unknown) => 0);
      for (const m of migrations.slice(0, 4)) old.exec(m);
      old.pragma('user_version = 4');
      old.exec(`
        INSERT INTO sites (id, url, added_at, pulls, reward_sum, reward_max) VALUES (1, 'https://a.example/', '2024-01-01T00:00:00.000Z', 1, 3, 3);
        INSERT INTO pages (id, site_id, key, dir, fp, url, level, status) VALUES (1, 1, 'https://a.example/', 0, 0, 'https://a.example/', 0, 'done');
        INSERT INTO fetches (seq, site_id, page_id, reward, ms, at) VALUES (1, 1, 1, 3, 5, '2024-01-02T03:04:05.000Z');
        INSERT INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag) VALUES
          (1, 1, 'https://x.example/', 'https://www.x.example/', 0, '', '', 'a'),
          (1, 1, 'http://x.example/', 'http://x.example/', 0, '', '', 'a'),
          (1, 1, 'https://y.example/p', 'https://y.example/p', 0, '', '', 'a');
      `);
      old.close();
      const d = openDb(file);
      try {
        expect(d.prepare('SELECT key, host FROM external_links ORDER BY key').raw().all()).toEqual([
          ['http://x.example/', 'x.example'], ['http://y.example/p', 'y.example'],
        ]);
        expect(d.prepare('SELECT key FROM pages').pluck().all()).toEqual([urlKey(new URL('https://a.example/'), 'standard')]);
        expect(d.prepare('SELECT reward_urls, reward_hosts, reward_pairs FROM fetches').raw().all()).toEqual([[null, null, 3]]);
        expect(d.prepare("SELECT value FROM settings WHERE key = 'reward'").pluck().get()).toBe('pairs');
        // the upgraded seen-set is the crawl's: the start page is known under its http: key
        const w = new PullWriter(d);
        d.prepare("UPDATE pages SET status = 'queued'").run();
        w.commit(pull(1, 'https://a.example/', ['https://a.example/'], ['https://x.example/']));
        w.group.flush();
        expect(d.prepare('SELECT count(*) FROM pages').pluck().get()).toBe(1);
      } finally {
        d.close();
      }
    } finally {
      cleanup();
    }
  });
});

describe('PullWriter rewards', () => {
  it('counts a URL or host new to the site even when another site has it, and new-to-the-store apart', () => {
    const { dir, cleanup } = tempDir();
    const d = openDb(join(dir, 'w.db'));
    try {
      insertSites(d, [{ url: new URL('http://a.example/') }, { url: new URL('http://b.example/') }], 'standard');
      const w = new PullWriter(d);
      const first = w.commit(pull(1, 'http://a.example/', [], ['https://x.example/1', 'https://x.example/2', 'https://x.example/1']));
      expect(first).toMatchObject({ rewards: { urls: 2, hosts: 1, pairs: 2 }, newUrls: 2, newHosts: 1 });
      const other = w.commit({ ...pull(2, 'http://b.example/', [], ['http://x.example/1', 'https://z.example/']), page: { id: 2, siteId: 2, url: 'http://b.example/', level: 0 } });
      expect(other).toMatchObject({ rewards: { urls: 2, hosts: 2, pairs: 2 }, newUrls: 1, newHosts: 1 });
    } finally {
      d.close();
      cleanup();
    }
  });
});

function pull(id: number, url: string, internal: string[], external: string[]): PullResult {
  const key = (u: string) => urlKey(new URL(u), 'standard');
  return {
    page: { id, siteId: 1, url, level: 0 }, final: null, status: 'done', httpStatus: 200, contentType: 'text/html', bytes: 1,
    encoding: 'utf-8', encodingSource: 'meta', error: null, hops: [], ms: 1, retries: 0, note: null, unavailable: null,
    links: {
      internal: internal.map((u) => ({ url: u, key: key(u) })),
      external: external.map((u) => ({ url: u, key: key(u), host: new URL(u).hostname.replace(/^www\./, ''), anchor: '', rel: '', tag: 'a' })),
      bad: [],
    },
  };
}

/** Why a queued page of the site is skipped as a dead end (page/link-fate.ts over the tallies), or null. */
const deadEnd = (d: DeadEnds, siteId: number, url: string): string | null => queuedFate({ siteId, url }, { deadEnds: d })?.note ?? null;

describe('dead ends', () => {
  it('classes a link by directory, extension and double extension', () => {
    expect(linkClasses('http://h/doc/learning/index.ja.html')).toEqual(['dir /doc/learning/', '*.html', '*.ja.html']);
    expect(linkClasses('http://h/src/artifact?ci=trunk')).toEqual(['dir /src/?']);
    expect(linkClasses('http://h/a/.hidden')).toEqual(['dir /a/']);
    expect(linkClasses('http://h/')).toEqual(['dir /']);
  });

  it('skips a class after `limit` failed pulls with no page, and never a class that gave a page', () => {
    const d = new DeadEnds(3);
    d.record(1, 'http://h/m/index.html', 'page');
    for (const f of ['a', 'b']) d.record(1, `http://h/m/${f}.ja.html`, 'dead');
    expect(deadEnd(d, 1, 'http://h/m/c.ja.html')).toBeNull(); // two are not enough
    d.record(1, 'http://h/m/c.ja.html', 'dead');
    d.record(1, 'http://h/m/d.ja.html', 'other'); // a network error or 5xx says nothing of the link
    expect(deadEnd(d, 1, 'http://h/m/e.ja.html')).toBe('dead end: 3 failed pulls and no page in *.ja.html');
    expect(deadEnd(d, 1, 'http://h/m/e.fr.html')).toBeNull(); // dir /m/ and *.html gave a page
    expect(deadEnd(d, 2, 'http://h/m/e.ja.html')).toBeNull(); // per site
    for (const f of ['x', 'y', 'z']) d.record(1, `http://h/v4/api/${f}.html`, 'dead');
    expect(deadEnd(d, 1, 'http://h/v4/api/net.html')).toBe('dead end: 3 failed pulls and no page in dir /v4/api/');
    const off = new DeadEnds(null);
    for (const f of ['x', 'y', 'z', 'w']) off.record(1, `http://h/v4/${f}.ly`, 'dead');
    expect(deadEnd(off, 1, 'http://h/v4/q.ly')).toBeNull();
  });

  it('a pull is a page, a dead link (4xx, not HTML) or neither', () => {
    expect([pullOutcome('done', 200), pullOutcome('error', 404), pullOutcome('not-html', 200), pullOutcome('error', 503), pullOutcome('error', null), pullOutcome('redirect', 301)])
      .toEqual(['page', 'dead', 'dead', 'other', 'other', 'other']);
  });
});
