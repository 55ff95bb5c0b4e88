import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startBenchWeb, type BenchWeb, type Served } from '../../../bench/web-server.js';
import type { WebConfig } from '../../../bench/web.js';
import { beebot, tempDir, type CliResult } from '../../helpers/cli.js';
import { crawlTables } from '../../helpers/crawl-tables.js';
import { rows } from '../../helpers/read-db.js';
import { createDatabase, startPostgres, type PgCluster } from '../../helpers/postgres.js';
import { startCommitCutProxy } from '../../helpers/commit-cut-proxy.js';

// The database server goes away under a running crawl: frozen (SIGSTOP, as a paused VM), restarted
// (pg_ctl restart -m fast), or gone for longer than db-reconnect. A wait for the database is not a
// page's failure, and a lost connection is opened again: the crawl ends with the tables of an
// uninterrupted one. Gone for good: one line, exit 1. A refresh or watch holds its run lock on
// each new connection too.
const WEB: WebConfig = { sites: 4, pagesPerSite: 40, soloPages: 0, fanout: 10, seed: 11 };
const HOSTS = Array.from({ length: WEB.sites }, (_, i) => `site${i}.bench`);
const PAGE_TIMEOUT = 2000;

let cluster: PgCluster;
let web: BenchWeb;
const log: Served[] = [];
const tmp = tempDir();
let baseline: ReturnType<typeof crawlTables>;

beforeAll(async () => {
  [cluster, web] = await Promise.all([startPostgres(), startBenchWeb(WEB, { latencyMs: 50, log })]);
  writeFileSync(join(tmp.dir, 'seeds.txt'), HOSTS.map((h) => `http://${h}:${web.port}/`).join('\n') + '\n');
  const db = join(tmp.dir, 'baseline.db');
  await prepare(db);
  await ok(beebot(crawlArgs(), { db }));
  baseline = crawlTables(db);
}, 120_000);
afterAll(async () => {
  cluster?.resume();
  await Promise.all([cluster?.stop(), web?.close()]);
  tmp.cleanup();
});

const resolveArgs = () => HOSTS.flatMap((h) => ['--resolve', `${h}:${web.port}:127.0.0.1`]);
const crawlArgs = () => ['crawl', '--budget', 'none', '--delay', '60', '--concurrency', '4', '--policy', 'round-robin', ...resolveArgs()];

async function ok(run: Promise<CliResult>): Promise<CliResult> {
  const r = await run;
  expect(r.code, r.stderr.slice(-1500)).toBe(0);
  return r;
}

async function prepare(db: string): Promise<void> {
  await ok(beebot(['seeds', 'import', join(tmp.dir, 'seeds.txt')], { db }));
  await ok(beebot(['config', 'set', 'page-timeout', String(PAGE_TIMEOUT)], { db }));
}

/** Once the web has served `n` pages since `from`. */
async function served(from: number, n: number): Promise<void> {
  for (let t = 0; t < 800 && log.filter((r) => r.start >= from && r.path !== '/robots.txt').length < n; t++) await new Promise((r) => setTimeout(r, 25));
}

/**
 * What the crawl said besides its progress lines (one per page, tab-separated). Left out too: the
 * server's own goodbye as libpq prints it. A backend told to stop right after answering sends it
 * in the same read as the answer, libpq then takes it for a notice and its default notice
 * processor writes it to stderr; the libpq binding offers no way to replace that processor.
 */
const said = (stderr: string) =>
  stderr.split('\n').filter((l) => l !== '' && !/^\d+\t/.test(l) && l !== 'FATAL:  terminating connection due to administrator command');

/**
 * Cut the connection of the run holding the run lock (db/run-lock.ts) and take the lock before the
 * run is connected again (its first pause is 100 ms); then wait for the run to end.
 */
async function cutAndTakeRunLock(db: string, run: Promise<CliResult>): Promise<CliResult> {
  const { default: pg } = await import('pg');
  const other = new pg.Client({ connectionString: db });
  await other.connect();
  try {
    await other.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`);
    await other.query('SELECT pg_advisory_lock($1)', [0x6265_6572_7266]);
    return await run;
  } finally {
    await other.end();
  }
}

describe('the PostgreSQL server goes away under a crawl, a refresh or a watch', () => {
  it('frozen for longer than the page timeout: no page is blamed for the wait, the crawl ends as an uninterrupted one', async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    const from = Date.now();
    const run = beebot(crawlArgs(), { db });
    await served(from, 30);
    cluster.pause();
    await new Promise((r) => setTimeout(r, 3 * PAGE_TIMEOUT));
    cluster.resume();
    const r = await ok(run);
    expect(said(r.stderr)).toEqual([]);
    expect(rows(db, `SELECT error FROM fetches WHERE error IS NOT NULL`)).toEqual([]);
    expect(crawlTables(db)).toEqual(baseline);
  }, 120_000);

  it('restarted (pg_ctl restart -m fast) under two workers: both connect again and finish the same crawl', async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    const from = Date.now();
    const runs = [beebot(crawlArgs(), { db }), beebot(crawlArgs(), { db })];
    await served(from, 30);
    await cluster.restart();
    // A worker that starts after the other committed a page joins a crawl under way, and says so.
    for (const r of await Promise.all(runs.map(ok))) expect(said(r.stderr).filter((l) => !/^resuming: [\d,]+ (of [\d,]+ )?pages done$/.test(l))).toEqual([]);
    const got = crawlTables(db);
    expect(got.fetchedTwice).toEqual([]);
    expect(got).toEqual(baseline);
  }, 120_000);

  it('gone for longer than db-reconnect: one line, exit 1; resumed with the server back, the crawl ends as an uninterrupted one', async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    await ok(beebot(['config', 'set', 'db-reconnect', '2000'], { db }));
    const from = Date.now();
    const run = beebot(crawlArgs(), { db });
    await served(from, 30);
    const stopped = Date.now();
    await cluster.halt();
    const r = await run;
    const waited = Date.now() - stopped;
    await cluster.start();
    expect(r.code).toBe(1);
    expect(said(r.stderr)).toEqual([expect.stringMatching(/^beebot: lost the connection to PostgreSQL at .* and could not connect again within 2 s \(.+\)$/)]);
    expect(waited).toBeGreaterThanOrEqual(2000);
    expect(waited).toBeLessThan(15_000);
    await ok(beebot(crawlArgs(), { db }));
    expect(crawlTables(db)).toEqual(baseline);
  }, 120_000);

  it("a connection cut after a page's COMMIT reached the server (its answer lost): the page is stored once, the crawl ends as an uninterrupted one", async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    const proxy = await startCommitCutProxy(db, /INSERT INTO fetches/, [5, 20, 40]);
    try {
      const r = await ok(beebot(crawlArgs(), { db: proxy.url }));
      expect(said(r.stderr)).toEqual([]);
      expect(proxy.cuts()).toBe(3);
    } finally {
      await proxy.close();
    }
    const got = crawlTables(db);
    expect(got.fetchedTwice).toEqual([]);
    expect(got).toEqual(baseline);
    expect(rows(db, 'SELECT sum(pulls) AS pulls FROM sites')).toEqual([{ pulls: baseline.pulls }]);
  }, 120_000);

  it('restarted under a refresh: the refresh takes its run lock again on its new connection, so a second refresh is refused meanwhile', async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    await ok(beebot(crawlArgs(), { db }));
    const refreshArgs = ['refresh', '--delay', '60', ...resolveArgs()];
    const from = Date.now();
    const first = beebot(refreshArgs, { db });
    await served(from, 10);
    await cluster.restart();
    await served(Date.now(), 5); // it has written since: connected again
    const second = await beebot(refreshArgs, { db });
    expect(second.code, second.stderr).toBe(1);
    expect(said(second.stderr)).toEqual([`beebot: a refresh or watch is running on ${db}`]);
    const r = await ok(first);
    expect(said(r.stderr)).toEqual([]);
    expect(r.stdout).toMatch(/checked 160 of 160 planned pages/);
  }, 120_000);

  it('a refresh whose connection was cut finds its run lock taken meanwhile: one line, exit 1', async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    await ok(beebot(crawlArgs(), { db }));
    const from = Date.now();
    const run = beebot(['refresh', '--delay', '60', ...resolveArgs()], { db });
    await served(from, 10);
    const r = await cutAndTakeRunLock(db, run);
    expect(r.code).toBe(1);
    expect(said(r.stderr)).toEqual([`beebot: a refresh or watch is running on ${db}`]);
  }, 120_000);

  it('a watch whose connection was cut finds its run lock taken meanwhile: one line, exit 1', async () => {
    const db = await createDatabase(cluster);
    await prepare(db);
    await ok(beebot(crawlArgs(), { db }));
    for (const h of HOSTS) await ok(beebot(['watch', 'add', `http://${h}:${web.port}/`], { db }));
    const from = Date.now();
    const run = beebot(['watch', '--for', '30s', '--schedule', 'fixed', '--interval', '1s', ...resolveArgs()], { db });
    await served(from, 8); // two rounds of checks
    const r = await cutAndTakeRunLock(db, run);
    expect(r.code).toBe(1);
    expect(said(r.stderr)).toEqual([`beebot: a refresh or watch is running on ${db}`]);
  }, 120_000);
});
