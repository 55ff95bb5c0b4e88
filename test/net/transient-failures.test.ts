// A failure that may pass (network, DNS, timeout, 5xx, 429, robots.txt unreadable) is "not now",
// never "never": the real CLI crawls real loopback servers that go away and come back, and after a
// rerun with everything back the store equals that of one uninterrupted crawl.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureFacts, fixtureSeeds } from '../../fixtures/web.js';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';
import { storedRows } from '../helpers/crawl-tables.js';
import { serveCounting } from '../helpers/counting-site.js';
import { createDatabase, startPostgres } from '../helpers/postgres.js';
import { rows } from '../helpers/read-db.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp?.cleanup());

const noTrace = (r: CliResult) => expect(r.stderr).not.toMatch(/\n\s+at /);

describe('the fixture web going away during a crawl and coming back', () => {
  let web: FixtureWeb;
  let port: number;
  let seeds: string;
  let baseline: ReturnType<typeof storedRows>;

  const restart = async () => {
    web = await startFixtureWeb({ port });
  };
  const seeded = async (name: string) => {
    const db = join(tmp.dir, name);
    expect((await beebot(['seeds', 'import', seeds], { db })).code).toBe(0);
    return db;
  };
  const crawl = (db: string, ...extra: string[]) => beebot(['crawl', '--delay', '0', '--concurrency', '4', ...extra, ...web.resolveArgs()], { db });

  beforeAll(async () => {
    web = await startFixtureWeb();
    port = web.port;
    seeds = join(tmp.dir, 'seeds.txt');
    writeFileSync(seeds, fixtureSeeds.map((s) => web.url(s.host)).join('\n') + '\n');
    const db = await seeded('baseline.db');
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    baseline = storedRows(db);
    expect(baseline.pages.length).toBeGreaterThan(150);
  }, 60_000);
  afterAll(() => web?.close());

  /** Crawl into `db`, stop the server for 3 s after 40 pages, then rerun with it back: the store equals the baseline. */
  const killedAndBack = async (db: string) => {
    expect((await beebot(['seeds', 'import', seeds], { db })).code).toBe(0);
    const run = beebot(['crawl', '--delay', '25', '--concurrency', '4', ...web.resolveArgs()], { db });
    let lines = 0;
    let killed: Promise<void> | null = null;
    run.child.stderr!.on('data', (d: Buffer | string) => {
      lines += String(d).split('\n').length - 1;
      if (!killed && lines >= 40) killed = web.close().then(() => new Promise((r) => setTimeout(r, 3000))).then(restart);
    });
    const first = await run;
    await killed;
    noTrace(first);
    expect(killed, 'the server was never stopped: the crawl ended first').not.toBeNull();
    const failed = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'error' AND url NOT LIKE '%obryv%'")[0]!.n;
    const baseErrors = baseline.pages.filter((p) => p.endsWith(',"error"]')).length;
    expect(failed, 'a page that failed for a moment was stored as a permanent error').toBeLessThanOrEqual(baseErrors);
    const again = await crawl(db);
    noTrace(again);
    // 1 when the first run already got everything back: the rerun then meets only the fixture's
    // own failures (down.test, a reset page), and says nothing could be reached
    expect([0, 1], again.stderr).toContain(again.code);
    expect(storedRows(db)).toEqual(baseline);
  };

  it('server killed and back 3 s later: the pages that failed are fetched again, the store equals an uninterrupted crawl', async () => {
    await killedAndBack(join(tmp.dir, 'killed.db'));
  }, 120_000);

  it('the same on PostgreSQL', async () => {
    const cluster = await startPostgres();
    try {
      await killedAndBack(await createDatabase(cluster));
    } finally {
      await cluster.stop();
    }
  }, 180_000);

  it('DNS failing on resume: the site waits (never robots-denied), and a rerun with DNS back equals an uninterrupted crawl', async () => {
    const db = await seeded('dns.db');
    // a short back-off cap, so a host failing everything is paused within seconds
    for (const [k, v] of [['max-backoff', '2000'], ['give-up-after', '3']]) expect((await beebot(['config', 'set', k, v], { db })).code).toBe(0);
    expect((await crawl(db, '--budget', '40')).code).toBe(0);
    // thin.test without --resolve: the system resolver fails for it (.test names do not exist).
    const resolve = web.resolveArgs();
    const noThin: string[] = [];
    for (let i = 0; i < resolve.length; i += 2) if (!/^(www\.)?thin\.test:/.test(resolve[i + 1]!)) noThin.push(resolve[i]!, resolve[i + 1]!);
    const dns = await beebot(['crawl', '--delay', '0', '--concurrency', '4', '--budget', 'none', ...noThin], { db });
    noTrace(dns);
    const denied = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'robots-denied'")[0]!.n;
    expect(denied).toBe(0);
    const thinQueued = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE site_id = 1 AND status = 'queued'")[0]!.n;
    expect(thinQueued).toBeGreaterThan(0);
    expect(dns.code, dns.stderr).toBe(0); // the other sites were reached
    expect(dns.stdout).toMatch(/site TSU|site http:\/\/thin\.test/);
    const back = await crawl(db);
    expect(back.code, back.stderr).toBe(0);
    expect(storedRows(db)).toEqual(baseline);
  }, 120_000);

  it('total outage on resume: exit 1 with one line, the frontier and the failure counts kept; then back: equal to an uninterrupted crawl', async () => {
    const db = await seeded('outage.db');
    for (const [k, v] of [['max-backoff', '2000'], ['give-up-after', '3']]) expect((await beebot(['config', 'set', k, v], { db })).code).toBe(0);
    expect((await crawl(db, '--budget', '40')).code).toBe(0);
    const queued = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued'")[0]!.n;
    await web.close();
    let out: CliResult;
    try {
      out = await crawl(db, '--budget', 'none');
    } finally {
      await restart();
    }
    noTrace(out);
    expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued'")[0]!.n, 'the frontier is kept').toBe(queued);
    expect(out.code).toBe(1);
    const lines = out.stderr.split('\n').filter((l) => l.startsWith('beebot:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^beebot: nothing could be reached in this run .*run beebot crawl again later$/);
    expect(out.stdout).toMatch(/site \S+: \d+ pages? left: \d+ wait for \S+ \(\d+ pages? in a row failed for now, .*; in the next run\)|site \S+: not available in this run/);
    expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued'")[0]!.n).toBe(queued);
    expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status IN ('robots-denied', 'error') AND url NOT LIKE '%obryv%'")[0]!.n)
      .toBe(rows<{ n: number }>(db, "SELECT count(*) AS n FROM fetches WHERE error IS NOT NULL AND error NOT LIKE 'reset%'")[0]!.n);
    // the sites' failures in a row are stored: a restart goes on counting
    expect(rows<{ n: number }>(db, 'SELECT max(failures) AS n FROM sites')[0]!.n).toBeGreaterThan(0);
    const back = await crawl(db, '--budget', 'none');
    expect(back.code, back.stderr).toBe(0);
    expect(storedRows(db)).toEqual(baseline);
    expect(rows<{ n: number }>(db, 'SELECT max(failures) AS n FROM sites WHERE unavailable IS NULL')[0]!.n).toBe(0);
    expect(fixtureFacts.availableByHost['down.test']).toBe(false);
  }, 120_000);
});

const site = (route: (path: string, req: IncomingMessage, res: ServerResponse) => void) => serveCounting((path, res, _every, req) => route(path, req, res));

const page = (res: ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>${body}</body></html>`);
/** A small site: / → /a, /b; /a → /c; external and bad links on the way. */
const PAGES: Record<string, string> = {
  '/': '<a href="/a">a</a> <a href="/b">b</a> <a href="http://elsewhere.example/x">x</a>',
  '/a': '<a href="/c">c</a> <a href="http://other.example/">o</a> <a href="http://[bad">bad</a>',
  '/b': '<a href="/">home</a>',
  '/c': 'the end',
};
const serveSmall = (path: string, res: ServerResponse) => (PAGES[path] !== undefined ? page(res, PAGES[path]!) : res.writeHead(404).end());

async function crawlSite(db: string, host: string, port: number, config: Record<string, string> = {}, add = true): Promise<CliResult> {
  if (add) expect((await beebot(['seeds', 'add', `http://${host}:${port}/`], { db })).code).toBe(0);
  for (const [k, v] of Object.entries({ delay: '0', ...config })) expect((await beebot(['config', 'set', k, v], { db })).code).toBe(0);
  const r = await beebot(['crawl', '--resolve', `${host}:${port}:127.0.0.1`], { db });
  noTrace(r);
  return r;
}
const statuses = (db: string) => Object.fromEntries(rows<{ url: string; status: string }>(db, 'SELECT url, status FROM pages').map((p) => [new URL(p.url).pathname, p.status]));

describe('robots.txt unreachable', () => {
  it('is disallow for now: nothing fetched, nothing denied, the site tried again by the next crawl', async () => {
    let down = true;
    const s = await site((path, _req, res) => {
      if (path === '/robots.txt') return down ? res.writeHead(503).end() : res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow:\n');
      serveSmall(path, res);
    });
    try {
      const db = join(tmp.dir, 'robots.db');
      const first = await crawlSite(db, 'robots.test', s.port);
      expect(s.hits('/')).toBe(0);
      expect(statuses(db)).toEqual({ '/': 'queued' });
      expect(first.code).toBe(1); // nothing could be reached
      expect(first.stdout).toMatch(/site http:\/\/robots\.test:\d+\/: not available in this run: .*robots\.txt HTTP 503/);
      down = false;
      const second = await crawlSite(db, 'robots.test', s.port, {}, false);
      expect(second.code, second.stderr).toBe(0);
      expect(statuses(db)).toEqual({ '/': 'done', '/a': 'done', '/b': 'done', '/c': 'done' });
      expect(rows<{ unavailable: string | null }>(db, 'SELECT unavailable FROM sites')[0]!.unavailable).toBeNull();
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe('a 503 storm with Retry-After: 1', () => {
  it('pauses and retries the site, never gives it up for good', async () => {
    let storm = 11; // more than give-up-after (10) failures in a row
    const s = await site((path, _req, res) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      if (storm > 0) {
        storm--;
        return res.writeHead(503, { 'retry-after': '1' }).end();
      }
      serveSmall(path, res);
    });
    try {
      const db = join(tmp.dir, 'storm.db');
      const first = await crawlSite(db, 'storm.test', s.port);
      const [after] = rows<{ unavailable: string | null }>(db, 'SELECT unavailable FROM sites');
      if (after!.unavailable !== null) expect(after!.unavailable).toMatch(/for now/);
      expect(first.stdout + first.stderr).not.toMatch(/gave up/);
      const second = await crawlSite(db, 'storm.test', s.port, {}, false);
      expect(second.code, second.stderr).toBe(0);
      expect(statuses(db)).toEqual({ '/': 'done', '/a': 'done', '/b': 'done', '/c': 'done' });
      expect(rows<{ unavailable: string | null }>(db, 'SELECT unavailable FROM sites')[0]!.unavailable).toBeNull();
    } finally {
      await s.close();
    }
  }, 90_000);
});

describe('the streak of failures a run leaves', () => {
  it('does not pause the site in the next run for a page that fails again: only a page failing for the first time adds to it', async () => {
    const s = await site((path, req, res) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      if (path === '/') return page(res, '<a href="/x">x</a> <a href="/y">y</a>');
      if (path === '/x') return void req.socket.destroy(); // reset, every time
      if (path === '/y') return page(res, 'fine');
      res.writeHead(404).end();
    });
    try {
      const db = join(tmp.dir, 'streak.db');
      // /x comes before /y: the first run pauses the site on it, and the next run asks /x first again
      const first = await crawlSite(db, 'streak.test', s.port, { 'give-up-after': '1', 'max-backoff': '100', order: 'bfs' });
      expect(first.stdout).toMatch(/: 2 pages left: 2 wait for http:\/\/streak\.test:\d+ \(1 page in a row failed for now, the last with connection reset; in the next run\)$/m);
      expect(statuses(db)).toEqual({ '/': 'done', '/x': 'queued', '/y': 'queued' });
      const second = await crawlSite(db, 'streak.test', s.port, {}, false);
      noTrace(second);
      expect(statuses(db)['/y'], second.stdout).toBe('done');
      expect(s.hits('/x')).toBeGreaterThan(1);
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe('malformed responses', () => {
  it("are each page's own error: a healthy site is not given up for them", async () => {
    const raw: Record<string, string> = {
      '/bad-chunk': 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
      '/two-lengths': 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello!!',
      '/http09': '<html><body>no status line</body></html>',
      '/not-http': 'SSH-2.0-OpenSSH_9.6\r\n',
    };
    const s = await site((path, req, res) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      if (raw[path] !== undefined) return void req.socket.end(raw[path]);
      if (path === '/') return page(res, Object.keys(raw).map((p) => `<a href="${p}">${p}</a>`).join(' ') + ' <a href="/ok">ok</a>');
      if (path === '/ok') return page(res, 'fine');
      res.writeHead(404).end();
    });
    try {
      const db = join(tmp.dir, 'malformed.db');
      const r = await crawlSite(db, 'malformed.test', s.port, { 'give-up-after': '3' });
      expect(r.code, r.stderr).toBe(0);
      expect(statuses(db)).toEqual({ '/': 'done', '/bad-chunk': 'error', '/two-lengths': 'error', '/http09': 'error', '/not-http': 'error', '/ok': 'done' });
      expect(rows<{ unavailable: string | null; failures: number }>(db, 'SELECT unavailable, failures FROM sites')[0]).toEqual({ unavailable: null, failures: 0 });
      for (const p of Object.keys(raw)) expect(s.hits(p), `${p} asked once: a malformed answer is not repeated`).toBe(1);
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe('seeds retry', () => {
  it('tries a Not Available site again in the next crawl', async () => {
    let missing = true;
    const s = await site((path, _req, res) => {
      if (path === '/robots.txt') return res.writeHead(404).end();
      if (path === '/' && missing) return res.writeHead(404).end();
      serveSmall(path, res);
    });
    try {
      const db = join(tmp.dir, 'retry.db');
      const first = await crawlSite(db, 'retry.test', s.port);
      expect(first.code, first.stderr).toBe(0); // the server answered: reached
      expect(rows<{ unavailable: string | null }>(db, 'SELECT unavailable FROM sites')[0]!.unavailable).toMatch(/HTTP 404/);
      missing = false;
      // A start page that answered 404 is not retried by itself...
      await crawlSite(db, 'retry.test', s.port, {}, false);
      expect(statuses(db)).toEqual({ '/': 'error' });
      // ...until asked.
      const retry = await beebot(['seeds', 'retry', 'retry.test'], { db });
      expect(retry.code, retry.stderr).toBe(0);
      expect(retry.stdout).toMatch(/1 site\(s\) will be tried again/);
      const again = await crawlSite(db, 'retry.test', s.port, {}, false);
      expect(again.code, again.stderr).toBe(0);
      expect(statuses(db)).toEqual({ '/': 'done', '/a': 'done', '/b': 'done', '/c': 'done' });
      expect(rows<{ unavailable: string | null }>(db, 'SELECT unavailable FROM sites')[0]!.unavailable).toBeNull();
      const none = await beebot(['seeds', 'retry'], { db });
      expect(none.stdout).toMatch(/no Not Available site/);
      const bad = await beebot(['seeds', 'retry', 'nosuch'], { db });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      await s.close();
    }
  }, 60_000);
});
