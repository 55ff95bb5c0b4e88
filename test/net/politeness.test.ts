// Politeness: the per-host gate (pure timing state) and robots.txt's Crawl-delay end to end.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostGate } from '../../src/net/host-gate.js';
import { beebot, tempDir } from '../helpers/cli.js';

describe('HostGate', () => {
  it('uses a host delay never below the crawl delay', () => {
    const g = new HostGate({ delayMs: 250, maxBackoffMs: 60_000 });
    g.setDelay('a', 2000);
    g.setDelay('b', 10);
    expect([g.delayOf('a'), g.delayOf('b'), g.delayOf('c')]).toEqual([2000, 250, 250]);
  });

  it('pauses a host for Retry-After, capped', () => {
    const g = new HostGate({ delayMs: 0, maxBackoffMs: 5000 });
    g.pause('a', 2000);
    expect(g.waitMs('a')).toBeGreaterThan(1900);
    g.pause('b', 3_600_000);
    expect(g.waitMs('b')).toBeLessThanOrEqual(5000);
    expect(g.waitMs('c')).toBe(0);
  });

  it('backs off exponentially while a host fails and forgets on success', () => {
    const g = new HostGate({ delayMs: 100, maxBackoffMs: 60_000 });
    const waits = [1, 2, 3].map(() => (g.failed('a'), g.waitMs('a')));
    expect(waits[1]!).toBeGreaterThan(waits[0]! * 1.5);
    expect(waits[2]!).toBeGreaterThan(waits[1]! * 1.5);
    expect(g.state('a').failures).toBe(3);
    g.succeeded('a');
    expect(g.state('a').failures).toBe(0);
  });

  it('runs one request at a time per host', async () => {
    const g = new HostGate({ delayMs: 0, maxBackoffMs: 1000 });
    let running = 0;
    let most = 0;
    const job = () => g.run('a', AbortSignal.timeout(5000), async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    });
    await Promise.all([job(), job(), job()]);
    expect(most).toBe(1);
  });
});

describe('robots.txt Crawl-delay', () => {
  let server: http.Server;
  let port: number;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: beebot\nCrawl-delay: 30\nDisallow: /no/\n\nUser-agent: *\nDisallow: /\n');
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<a href="/a">a</a> <a href="/no/x">x</a> <a href="https://elsewhere.example/">e</a>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    tmp = tempDir();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    tmp.cleanup();
  });

  it('obeys our group, clamps a long Crawl-delay to max-crawl-delay and says so in status', async () => {
    const db = join(tmp.dir, 'p.db');
    await beebot(['seeds', 'add', `http://polite.test:${port}/`], { db });
    await beebot(['config', 'set', 'max-crawl-delay', '1'], { db });
    const r = await beebot(['crawl', '--delay', '0', '--resolve', `polite.test:${port}:127.0.0.1`], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/shortest time the delays between requests allow: 1\.0 s \(busiest host polite\.test:\d+: 2 pages, 1,000 ms apart\)/);
    const st = JSON.parse((await beebot(['status', '--json'], { db })).stdout);
    const h = st.sites[0].politeness[0];
    expect(h).toMatchObject({ delay_ms: 1000, crawl_delay_ms: 30000, clamped: true });
    const rows = (await beebot(['export', '-', '--kind', 'internal'], { db })).stdout;
    expect(rows).toMatch(/\/no\/x,1,robots-denied/);
    const table = (await beebot(['status'], { db })).stdout;
    expect(table).toMatch(/crawl-delay 30000ms asked, clamped to 1000ms/);
  });
});
