/**
 * `npm run bench:workers`: one crawl shared by 1, 2 and 4 worker processes on one PostgreSQL
 * database, against one SQLite crawl. The bench web's server answers every request
 * 50 ms late, and each worker fetches one page at a time (--concurrency 1), so one worker waits on
 * the network and more workers should crawl faster. Every run crawls the same web to the end;
 * the table shows pages/s (median of the repetitions) and checks that each run stored the same
 * pages and external links as the SQLite crawl.
 *
 * Options: --reps N (default 3), --sites N (12), --pages N per site (50), --latency MS (50), --delay MS (100).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startBenchWeb } from '../bench/web-server.js';
import type { WebConfig } from '../bench/web.js';
import { startPostgres } from '../fixtures/postgres.js';
import { openDb } from '../src/db/db.js';
import { helpFromHeader } from './script-help.js';

helpFromHeader(import.meta.url);

const BIN = fileURLToPath(new URL('../../bin/beebot.js', import.meta.url));
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? def : Number(process.argv[i + 1]);
};
const reps = arg('reps', 3);
const web: WebConfig = { sites: arg('sites', 12), pagesPerSite: arg('pages', 50), soloPages: 0, fanout: 10, seed: 3 };
const latency = arg('latency', 50);
const delay = arg('delay', 100);
const hosts = Array.from({ length: web.sites }, (_, i) => `site${i}.bench`);

function beebot(db: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [BIN, '--db', db, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`beebot ${args[0]} exited ${code}: ${err.slice(-500)}`))));
  });
}

/** What a finished crawl stored, as one comparable string: pages by URL and status, external links by page. */
function result(target: string): { pages: number; digest: string } {
  const db = openDb(target, { readonly: true });
  try {
    const rows = (sql: string) => (db.prepare(sql).raw().all() as unknown[][]).map((r) => r.join(' ')).sort();
    const pages = rows('SELECT url, status FROM pages');
    const external = rows('SELECT p.url, e.key FROM external_links e JOIN pages p ON p.id = e.page_id');
    return { pages: db.prepare('SELECT count(*) FROM fetches').pluck().get() as number, digest: `${pages.join('\n')}\n${external.join('\n')}` };
  } finally {
    db.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'beebot-bench-workers-'));
const [cluster, server] = await Promise.all([startPostgres(), startBenchWeb(web, { latencyMs: latency })]);
try {
  const seeds = join(dir, 'seeds.txt');
  writeFileSync(seeds, hosts.map((h) => `http://${h}:${server.port}/`).join('\n') + '\n');
  const crawlArgs = ['crawl', '--budget', 'none', '--delay', String(delay), '--concurrency', '1', '--policy', 'round-robin',
    ...hosts.flatMap((h) => ['--resolve', `${h}:${server.port}:127.0.0.1`])];
  let databases = 0;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  const fresh = async (store: string): Promise<string> => {
    if (store === 'sqlite') {
      const file = join(dir, `run${++databases}.db`);
      return file;
    }
    const name = `bench_${++databases}`;
    await admin.query(`CREATE DATABASE ${name}`);
    return cluster.url.replace(/\/[^/]*$/, `/${name}`);
  };

  const runs: { label: string; store: string; workers: number }[] = [
    { label: 'SQLite, 1 process', store: 'sqlite', workers: 1 },
    ...[1, 2, 4].map((w) => ({ label: `PostgreSQL, ${w} worker${w > 1 ? 's' : ''}`, store: 'pg', workers: w })),
  ];
  const pps = new Map<string, number[]>(runs.map((r) => [r.label, []]));
  let reference: string | null = null;
  const mismatches: string[] = [];
  let pages = 0;
  for (let rep = 0; rep < reps; rep++) {
    for (const r of runs) {
      const db = await fresh(r.store);
      await beebot(db, ['seeds', 'import', seeds]);
      const t0 = performance.now();
      await Promise.all(Array.from({ length: r.workers }, () => beebot(db, crawlArgs)));
      const seconds = (performance.now() - t0) / 1000;
      const got = result(db);
      pages = got.pages;
      reference ??= got.digest;
      if (got.digest !== reference) mismatches.push(`${r.label} (rep ${rep + 1})`);
      pps.get(r.label)!.push(got.pages / seconds);
      console.log(`${r.label}: ${got.pages} pages in ${seconds.toFixed(1)} s, ${(got.pages / seconds).toFixed(1)} pages/s`);
      if (r.store === 'sqlite') rmSync(db, { force: true });
    }
  }
  await admin.end();
  const base = median(pps.get(runs[1]!.label)!);
  console.log(`\n${web.sites} sites, ${pages} pages, server latency ${latency} ms, delay ${delay} ms, --concurrency 1 per worker, medians of ${reps}\n`);
  console.log('| store, workers | pages/s | vs 1 PostgreSQL worker |');
  console.log('|---|--:|--:|');
  for (const r of runs) {
    const m = median(pps.get(r.label)!);
    console.log(`| ${r.label} | ${m.toFixed(1)} | ${(m / base).toFixed(2)}× |`);
  }
  console.log(mismatches.length ? `\nDIFFERENT results: ${mismatches.join(', ')}` : '\nevery run stored the same pages and external links');
  if (mismatches.length) process.exitCode = 1;
} finally {
  await Promise.all([cluster.stop(), server.close()]);
  rmSync(dir, { recursive: true, force: true });
}
