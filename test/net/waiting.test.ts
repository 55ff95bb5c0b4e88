// A run whose only work left is failing sites ends by itself, says while it waits why and until
// when, and leaves their pages queued for a later run: bad servers and a dead proxy through the
// real CLI, on loopback, with the waiting rules (src/net/waiting.ts) tested directly.
import { createServer } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { startFixtureWeb } from '../../fixtures/server.js';
import { HostGate } from '../../src/net/host-gate.js';
import { clockTime, failingWait, failureCause, patienceMs, waitedOut, waitingPagesLine, waitLine } from '../../src/net/waiting.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { serveCounting, type CountingSite } from '../helpers/counting-site.js';
import { rows } from '../helpers/read-db.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp?.cleanup());

describe('the waiting rules', () => {
  const now = new Date(2026, 10, 27, 10, 30, 0).getTime();

  it('a run that reached something waits max-backoff for failing sites; one that reached nothing, the retry span', () => {
    expect(patienceMs(true, 60_000, 600_000)).toBe(60_000);
    expect(patienceMs(false, 60_000, 600_000)).toBe(600_000);
    expect(waitedOut(now, now - 59_999, 60_000)).toBe(false);
    expect(waitedOut(now, now - 60_000, 60_000)).toBe(true);
  });

  it('says what it waits for and until when', () => {
    const w = { sites: 8, cause: 'connection refused by proxy 127.0.0.1:1', nextTryMs: 24_200, givesUpAt: now + 12 * 60_000 };
    expect(waitLine(w, now)).toBe('waiting: 8 sites unreachable (connection refused by proxy 127.0.0.1:1); next try in 25 s, gives up at 10:42:00');
    expect(waitLine({ ...w, sites: 1, cause: 'HTTP 503', nextTryMs: null }, now)).toBe('waiting: 1 site failing (HTTP 503); no try before it gives up at 10:42:00');
    expect(waitLine({ ...w, nextTryMs: 13 * 60_000 }, now)).toMatch(/; no try before it gives up at 10:42:00$/);
    // a narrow terminal cuts the cause, not what happens next
    expect(waitLine(w, now, 90)).toBe('waiting: 8 sites unreachable (connection refused…); next try in 25 s, gives up at 10:42:00');
  });

  it('at each wait counts the failing sites with those in flight on a failing host, and sleeps until the next chance, never past giving up', () => {
    const givesUpAt = now + 60_000;
    const w = failingWait({ sites: 3, soonest: 4_000 }, 2, 'HTTP 503', givesUpAt, 5_000, now);
    expect(w).toEqual({ state: { sites: 5, cause: 'HTTP 503', nextTryMs: 4_000, givesUpAt }, sleepMs: 5_000 });
    // no next chance known: it sleeps until it gives up; a cause not known yet is a failure for now
    expect(failingWait({ sites: 1, soonest: null }, 0, null, givesUpAt, null, now)).toEqual({ state: { sites: 1, cause: 'failed for now', nextTryMs: null, givesUpAt }, sleepMs: 60_000 });
    expect(failingWait({ sites: 1, soonest: null }, 0, null, givesUpAt, 90_000, now).sleepMs).toBe(60_000);
    // past giving up (the worker checks before the next pick): the shortest sleep, not none
    expect(failingWait({ sites: 1, soonest: 0 }, 0, null, now - 5, 0, now).sleepMs).toBe(1);
  });

  it('ends with how many pages wait and when they can be tried', () => {
    expect(waitingPagesLine(12, 3, now + 2 * 3600_000 + 120_000, now)).toBe('12 pages of 3 sites wait to be retried (earliest 12:32:00); run beebot crawl again then');
    expect(waitingPagesLine(1, 1, null, now)).toBe('1 page of 1 site waits to be retried; run beebot crawl again later');
    expect(clockTime(new Date(2099, 0, 1, 0, 0).getTime(), now)).toBe('2099-01-01 00:00');
  });

  it('a Retry-After longer than max-backoff closes the host for the run; a shorter one pauses it', () => {
    const g = new HostGate({ delayMs: 0, maxBackoffMs: 5000 });
    g.pause('a', 2000);
    g.pause('b', 3_600_000);
    expect(g.closedUntil('a')).toBeNull();
    expect(g.closedUntil('b')! - Date.now()).toBeGreaterThan(3_599_000);
    expect(g.waitMs('b')).toBeLessThanOrEqual(5000);
  });

  it('names the cause in a few words; a connection a proxy refused is the proxy', () => {
    expect(failureCause('refused: connect ECONNREFUSED 127.0.0.1:1', null, 'http://127.0.0.1:1')).toBe('connection refused by proxy 127.0.0.1:1');
    expect(failureCause('robots.txt unreachable (refused): everything disallowed for now', null, 'http://127.0.0.1:1')).toBe('connection refused by proxy 127.0.0.1:1');
    expect(failureCause('refused: connect ECONNREFUSED 127.0.0.1:9', null, null)).toBe('connection refused');
    expect(failureCause('headers-timeout', null, null)).toBe('no answer');
    expect(failureCause('robots.txt unreachable (HTTP 503): everything disallowed for now', null, null)).toBe('HTTP 503');
    expect(failureCause(null, 429, 'http://p:3128')).toBe('HTTP 429');
    expect(failureCause('robots.txt unreachable (proxy refused the tunnel (502)): everything disallowed for now', null, 'http://p:3128')).toBe('proxy refused the tunnel (502)');
  });
});

const page = (res: ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>${body}</body></html>`);
const links = (n: number) => Array.from({ length: n }, (_, i) => `<a href="/p${i}">p${i}</a> <a href="http://ext${i}.example/">e</a>`).join(' ');

/** A site whose start page answers with `n` links, and whose other pages answer as `bad` says while it is bad. */
async function badSite(n: number, bad: (res: ServerResponse, req: IncomingMessage) => void, healthy: () => boolean): Promise<CountingSite> {
  return serveCounting((path, res, _every, req) => {
    if (path === '/robots.txt') return res.writeHead(404).end();
    if (path === '/') return page(res, links(n));
    if (!healthy()) return bad(res, req);
    page(res, 'fine');
  });
}

describe('a crawl of bad servers', () => {
  it('ends by itself soon after the last page that could be fetched, the failing pages queued and named; a rerun after they heal fetches them', async () => {
    let healed = false;
    const sites: Record<string, CountingSite> = {
      good: await badSite(6, () => {}, () => true),
      storm: await badSite(20, (res) => res.writeHead(503, { 'retry-after': '1' }).end(), () => healed),
      busy: await badSite(10, (res) => res.writeHead(429, { 'retry-after': '99999999999' }).end(), () => healed),
      later: await badSite(10, (res) => res.writeHead(503, { 'retry-after': 'Thu, 01 Jan 2099 00:00:00 GMT' }).end(), () => healed),
      // never answers: the socket is held until the crawler gives up on it
      mute: await badSite(10, () => {}, () => healed),
    };
    try {
      const db = join(tmp.dir, 'bad.db');
      const resolve: string[] = [];
      for (const [name, s] of Object.entries(sites)) {
        expect((await beebot(['seeds', 'add', `http://${name}.test:${s.port}/`], { db })).code).toBe(0);
        resolve.push('--resolve', `${name}.test:${s.port}:127.0.0.1`);
      }
      // short spans: a 2 s back-off cap, a 1 s wait for headers
      const config = { 'max-backoff': '2000', 'headers-timeout': '1000', 'page-timeout': '3000', retries: '0' };
      for (const [k, v] of Object.entries(config)) expect((await beebot(['config', 'set', k, v], { db })).code).toBe(0);
      const started = Date.now();
      const r = await beebot(['crawl', '--delay', '0', '--concurrency', '4', ...resolve], { db });
      const seconds = (Date.now() - started) / 1000;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      const good = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages p JOIN sites s ON s.id = p.site_id WHERE s.url LIKE 'http://good.test%' AND p.status = 'done'")[0]!.n;
      expect(good).toBe(7);
      // a few back-offs of at most 2 s after the last good page, not the retry span or the Retry-After
      expect(seconds).toBeLessThan(25);
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'error'")[0]!.n, 'nothing failed for good').toBe(0);
      const waiting = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued' AND retry_at IS NOT NULL")[0]!.n;
      expect(waiting).toBeGreaterThan(0);
      expect(r.stdout).toMatch(new RegExp(`^${waiting} pages of [1-4] sites? wait to be retried \\(earliest [\\d:-]+( [\\d:]+)?\\); run beebot crawl again then$`, 'm'));
      // the host that asked to be left alone is left to the next run: its pages wait, counted and named
      expect(r.stdout).toMatch(/^  site http:\/\/busy\.test:\d+\/: \d+ pages? left: \d+ waits? for http:\/\/busy\.test:\d+ \(asked not to be asked before [\d: -]+ \(Retry-After; max-backoff is 2000 ms\); in the next run\)$/m);
      expect(r.stdout).toMatch(/^  site http:\/\/later\.test:\d+\/: \d+ pages? left: \d+ waits? for http:\/\/later\.test:\d+ \(asked not to be asked before 2099-01-01 [\d:]+ \(Retry-After; max-backoff is 2000 ms\); in the next run\)$/m);
      // a host asking for longer than max-backoff is asked once, not hammered
      expect(sites.busy!.hits('/') + [...Array(10).keys()].reduce((n, i) => n + sites.busy!.hits(`/p${i}`), 0)).toBe(2);
      healed = true;
      const again = await beebot(['crawl', '--delay', '0'], { db });
      expect(again.code, again.stderr).toBe(0);
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued'")[0]!.n, 'nothing lost: all fetched once healed').toBe(0);
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'done'")[0]!.n).toBe(7 + 21 + 11 + 11 + 11);
    } finally {
      for (const s of Object.values(sites)) await s.close();
    }
  }, 120_000);
});

describe('a resumed crawl through a dead proxy', () => {
  it('says why it waits and until when, then stops with one line naming the cause, exit 1, nothing marked failed; a rerun through the proxy goes on', async () => {
    const web = await startFixtureWeb();
    try {
      const db = join(tmp.dir, 'proxy.db');
      for (const host of ['thin.test', 'tsu.test']) expect((await beebot(['seeds', 'add', web.url(host)], { db })).code).toBe(0);
      const proxy = `http://127.0.0.1:${web.port}`;
      const first = await beebot(['crawl', '--proxy', proxy, '--delay', '0', '--budget', '6'], { db });
      expect(first.code, first.stderr).toBe(0);
      const queued = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued'")[0]!.n;
      const errors = rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'error'")[0]!.n;
      expect(queued).toBeGreaterThan(0);
      // a short retry span: the time a run that reaches nothing waits
      expect((await beebot(['config', 'set', 'retry-span', '4000'], { db })).code).toBe(0);
      // pages that had used up their attempts long ago: a run that reaches nothing still keeps them
      const w = new Database(db);
      w.prepare("UPDATE pages SET attempts = 5, first_failed_at = 1 WHERE status = 'queued'").run();
      w.close();
      const started = Date.now();
      const dead = await beebot(['crawl', '--proxy', 'http://127.0.0.1:1', '--budget', '20'], { db });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(dead.code).toBe(1);
      const lines = dead.stderr.trim().split('\n');
      expect(lines[0]).toBe('resuming: 6 of 20 pages done');
      expect(lines).toContainEqual(expect.stringMatching(/^waiting: [12] sites? unreachable \(connection refused by proxy 127\.0\.0\.1:1\); (next try in \d+ s,|no try before it) gives up at \d\d:\d\d:\d\d$/));
      const last = lines.filter((l) => l.startsWith('beebot:'));
      expect(last).toHaveLength(1);
      expect(last[0]).toMatch(/^beebot: nothing could be reached in this run for \d+s \(connection refused by proxy 127\.0\.0\.1:1; .*run beebot crawl again later$/);
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued'")[0]!.n).toBe(queued);
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'error'")[0]!.n, 'nothing marked failed').toBe(errors);
      const back = await beebot(['crawl', '--proxy', proxy, '--budget', '10'], { db });
      expect(back.code, back.stderr).toBe(0);
      expect(rows<{ n: number }>(db, 'SELECT count(*) AS n FROM fetches')[0]!.n).toBe(10);
    } finally {
      await web.close();
    }
  }, 60_000);
});

describe('an https crawl through a proxy that closes every CONNECT unanswered', () => {
  it('is a failure for now, not a hang: it waits, then stops with one line naming the cause, exit 1, nothing marked failed', async () => {
    // undici 7 alone reconnects such a tunnel in a tight loop, the CPU spinning, and never settles.
    const proxy = createServer((c) => c.once('data', () => c.destroy()));
    const port = await listenLoopback(proxy);
    try {
      const db = join(tmp.dir, 'closing-proxy.db');
      expect((await beebot(['seeds', 'add', 'https://tunnel.test/'], { db })).code).toBe(0);
      expect((await beebot(['config', 'set', 'retry-span', '3000'], { db })).code).toBe(0);
      const started = Date.now();
      const run = beebot(['crawl', '--proxy', `http://127.0.0.1:${port}`, '--delay', '0', '--budget', '5'], { db });
      const hung = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
      const r = await run;
      clearTimeout(hung);
      expect(r.signal, 'killed after 30 s: it hung').toBeNull();
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      const last = r.stderr.trim().split('\n').filter((l) => l.startsWith('beebot:'));
      expect(last).toHaveLength(1);
      expect(last[0]).toMatch(new RegExp(`^beebot: nothing could be reached in this run for \\d+s \\(connection reset by proxy 127\\.0\\.0\\.1:${port}; .*run beebot crawl again later$`));
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'queued'")[0]!.n, 'the start page stays queued').toBe(1);
    } finally {
      await new Promise((done) => proxy.close(done));
    }
  }, 60_000);
});
