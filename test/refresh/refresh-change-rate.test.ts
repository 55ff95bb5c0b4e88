// `beebot refresh --schedule change-rate` with the real CLI against a loopback site whose pages
// change on every request: over several iterations every page is checked, none starves.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

const PAGES = 6;

/** A home page linking /p1../p6; every answer (home included) carries a new counter, so every check finds a change. */
async function everChanging(): Promise<{ port: number; close: () => Promise<void> }> {
  let n = 0;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt') return void res.writeHead(404).end();
    const links = path === '/' ? Array.from({ length: PAGES }, (_, i) => `<a href="/p${i + 1}">p${i + 1}</a>`).join(' ') : '<a href="/">home</a>';
    if (path !== '/' && !/^\/p[1-6]$/.test(path)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>${path} version ${++n}</p>${links}</body></html>`);
  });
  const port = await listenLoopback(server);
  return { port, close: () => new Promise((r) => server.close(() => r())) };
}

describe('refresh --schedule change-rate', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: Awaited<ReturnType<typeof everChanging>>;

  beforeEach(async () => {
    tmp = tempDir();
    server = await everChanging();
  });

  afterEach(async () => {
    await server.close();
    tmp.cleanup();
  });

  it('checks every page of a site whose pages change on every request: 2 checks per iteration, 14 iterations, none starves', async () => {
    const db = join(tmp.dir, 'cr.db');
    const via = ['--resolve', `site.test:${server.port}:127.0.0.1`, '--delay', '0'];
    expect((await beebot(['seeds', 'add', `http://site.test:${server.port}/`], { db })).code).toBe(0);
    const c = await beebot(['crawl', '--budget', 'none', '--concurrency', '1', ...via], { db });
    expect(c.code, c.stderr).toBe(0);
    // the cost model fixed at 1 s a check and a budget of 2 s: two checks an iteration
    const args = ['refresh', '--schedule', 'change-rate', '--cost', '0,1000', '--budget-time', '2s', '--json', ...via];
    for (let i = 0; i < 7; i++) {
      const r = await beebot([...args, '--iterations', '2'], { db });
      expect(r.code, r.stderr).toBe(0);
    }
    const checks = rows<{ url: string; n: number }>(
      db, 'SELECT p.url, count(r.seq) AS n FROM pages p LEFT JOIN refreshes r ON r.page_id = p.id WHERE p.status = ? GROUP BY p.url ORDER BY p.url', 'done',
    );
    expect(checks).toHaveLength(PAGES + 1);
    const counts = checks.map((x) => x.n);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(28);
    // every page came round more than once (4 each when shared evenly). The schedule reads the real
    // clock, and under load a run's start-up shifts the waits enough to give one page 3 and another 2:
    // a starved page would have had its first check at most.
    expect(Math.min(...counts), JSON.stringify(checks)).toBeGreaterThanOrEqual(2);
    expect(rows<{ action: string }>(db, 'SELECT DISTINCT action FROM refreshes')).toEqual([{ action: 'replace' }]);
  });
});
