import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startBenchWeb, type BenchWeb, type Served } from '../../../bench/web-server.js';
import type { WebConfig } from '../../../bench/web.js';
import { openDb } from '../../../src/db/db.js';
import { crawlTables } from '../../helpers/crawl-tables.js';
import { beebot, tempDir, type CliResult } from '../../helpers/cli.js';
import { createDatabase, startPostgres, type PgCluster } from '../../helpers/postgres.js';

// N `beebot crawl` processes on one PostgreSQL database share one crawl. Each crawls
// the generated bench web to the end, the server answering every request 50 ms late (so one
// worker waits on the network), and must leave the same tables as one SQLite crawl.
const WEB: WebConfig = { sites: 4, pagesPerSite: 40, soloPages: 0, fanout: 10, seed: 7 };
const HOSTS = Array.from({ length: WEB.sites }, (_, i) => `site${i}.bench`);
const LATENCY = 50;
const DELAY = 60;

let cluster: PgCluster;
let web: BenchWeb;
const log: Served[] = [];
const tmp = tempDir();

beforeAll(async () => {
  [cluster, web] = await Promise.all([startPostgres(), startBenchWeb(WEB, { latencyMs: LATENCY, log })]);
  writeFileSync(join(tmp.dir, 'seeds.txt'), HOSTS.map((h) => `http://${h}:${web.port}/`).join('\n') + '\n');
});
afterAll(async () => {
  await Promise.all([cluster?.stop(), web?.close()]);
  tmp.cleanup();
});

const resolveArgs = () => HOSTS.flatMap((h) => ['--resolve', `${h}:${web.port}:127.0.0.1`]);
const crawlArgs = () => ['crawl', '--budget', 'none', '--delay', String(DELAY), '--concurrency', '2', '--policy', 'round-robin', ...resolveArgs()];

async function ok(run: Promise<CliResult>): Promise<CliResult> {
  const r = await run;
  expect(r.code, r.stderr.slice(-1500)).toBe(0); // progress lines go to stderr
  return r;
}

async function prepare(db: string): Promise<void> {
  await ok(beebot(['seeds', 'import', join(tmp.dir, 'seeds.txt')], { db }));
  // a short page timeout: a killed worker's leases (page timeout + 5 s) come back soon
  await ok(beebot(['config', 'set', 'page-timeout', '3000'], { db }));
}

const tables = crawlTables;

/** Requests for pages (robots.txt once per worker is allowed) per host, by the server's clock. */
function served(from: number): Served[] {
  return log.filter((r) => r.start >= from && r.path !== '/robots.txt');
}

/**
 * Each host: one request at a time, and the delay from the end of one to the start of the next,
 * so arrivals at least latency + delay apart. Measured between arrivals: the server shares this
 * process's event loop, and a response it sends late (rendering a page) makes its end time late
 * too, while its arrival time stays right. 10 ms for timers.
 */
function politenessViolations(requests: Served[]): string[] {
  const bad: string[] = [];
  for (const host of HOSTS) {
    const mine = requests.filter((r) => r.host === host).sort((a, b) => a.start - b.start);
    for (let i = 1; i < mine.length; i++) {
      const apart = mine[i]!.start - mine[i - 1]!.start;
      if (apart < LATENCY + DELAY - 10) bad.push(`${host}: ${mine[i - 1]!.path} → ${mine[i]!.path} arrived ${apart} ms apart`);
    }
  }
  return bad;
}

let baseline: ReturnType<typeof tables>;

describe('one crawl, many workers (PostgreSQL)', () => {
  it('one SQLite crawl: the baseline', async () => {
    const db = join(tmp.dir, 'one.db');
    await prepare(db);
    const from = Date.now();
    await ok(beebot(crawlArgs(), { db }));
    baseline = tables(db);
    expect(baseline.pulls).toBeGreaterThan(WEB.sites * 20);
    expect(baseline.external.length).toBeGreaterThan(100);
    expect(baseline.fetchedTwice).toEqual([]);
    expect(politenessViolations(served(from))).toEqual([]);
  }, 120_000);

  for (const workers of [1, 2, 4]) {
    it(`${workers} worker process(es) on PostgreSQL: the same tables, no page fetched twice, politeness held`, async () => {
      const db = await createDatabase(cluster);
      await prepare(db);
      const from = Date.now();
      const runs = Array.from({ length: workers }, () => ok(beebot(crawlArgs(), { db })));
      await Promise.all(runs);
      const got = tables(db);
      expect(got.fetchedTwice).toEqual([]);
      expect(got).toEqual(baseline);
      const pages = served(from);
      // every page the crawl fetched was requested once, whichever worker asked
      const paths = pages.map((r) => `${r.host}${r.path}`);
      expect(new Set(paths).size).toBe(paths.length);
      expect(paths.length).toBe(got.pulls);
      expect(politenessViolations(pages)).toEqual([]);
      if (workers === 2) {
        // a full pass re-checks on the shared database too (it takes a run lock there, not a lock file)
        await ok(beebot(['crawl', '--refresh', '--budget', '10', '--delay', '0', ...resolveArgs()], { db }));
        const d = openDb(db, { readonly: true });
        try {
          expect(d.prepare(`SELECT count(*) FROM refreshes`).pluck().get()).toBe(10);
        } finally {
          d.close();
        }
      }
    }, 180_000);
  }

  it('a worker killed with kill -9 mid-crawl loses nothing: its leases expire and the others finish the same crawl', async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    const from = Date.now();
    const victim = beebot(crawlArgs(), { db });
    const survivor = beebot(crawlArgs(), { db });
    // kill the victim once the crawl is under way (some pages committed, one in flight)
    for (let t = 0; t < 400 && served(from).length < 30; t++) await new Promise((r) => setTimeout(r, 25));
    victim.child.kill('SIGKILL');
    expect((await victim).signal).toBe('SIGKILL');
    await ok(survivor);
    const got = tables(db);
    expect(got).toEqual(baseline);
    expect(got.fetchedTwice).toEqual([]);
    expect(politenessViolations(served(from))).toEqual([]);
  }, 180_000);
});
