// `npm run bench:scale`: beebot at study scale. The generated web (bench/web.ts) with many sites,
// reached through the benchmark server as an HTTP proxy (as a study's crawl through a proxy):
// - crawl: the same budget over 100 ... 30,000 sites (C = 8, --delay 0, the default order and
//   policy); time per page, peak RSS and the summary's length, for each site count;
// - dead proxy: every fetch fails (a closed port as the proxy), retry-span short; how long until
//   the crawl ends and what it says;
// - seeds import: 50,000 hosts of one registrable domain, and 50,000 distinct domains.
// Figures, not assertions: a table to stdout, progress to stderr, everything to
// bench/scale-results.json. Options: --help.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBenchWeb } from '../bench/web-server.js';
import { siteHost, type WebConfig } from '../bench/web.js';
import { median } from '../bench/report.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'beebot.js');
const log = (s: string) => process.stderr.write(`${s}\n`);

const USAGE = `usage: npm run bench:scale -- [options]   (or node dist/scripts/bench-scale.js [options])
  --sites 100,1000,4000,30000   site counts of the crawl part
  --budget 3000                 pages each crawl fetches
  --reps 1                      runs of each site count, alternated (medians; peak RSS the largest)
  --dead 10000                  site counts of the dead-proxy part
  --retry-span 2000             the dead-proxy runs' retry-span (ms)
  --import 50000                hosts of the seeds-import part
  --parts crawl,dead,import     which parts to run
  --cpu-prof DIR                profile each crawl into DIR (node --cpu-prof)
  --out FILE                    the figures as JSON (default bench/scale-results.json)
  --timeout MS                  a child that runs longer is killed (default 15 minutes)
  --help                        this text`;
const flags = ['sites', 'budget', 'reps', 'dead', 'retry-span', 'import', 'parts', 'cpu-prof', 'out', 'timeout'] as const;
let values: Partial<Record<(typeof flags)[number], string>> & { help?: boolean };
try {
  values = parseArgs({ options: { ...Object.fromEntries(flags.map((f) => [f, { type: 'string' as const }])), help: { type: 'boolean', short: 'h' } } }).values;
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const option = (name: (typeof flags)[number], fallback: string): string => values[name] ?? fallback;
const list = (name: (typeof flags)[number], fallback: string) => option(name, fallback).split(',').filter(Boolean).map(Number);
const siteCounts = list('sites', '100,1000,4000,30000');
const budget = Number(option('budget', '3000'));
const reps = Number(option('reps', '1'));
const deadSites = list('dead', '10000');
const importHosts = Number(option('import', '50000'));
const retrySpanMs = Number(option('retry-span', '2000'));
const parts = new Set(option('parts', 'crawl,dead,import').split(','));
const profileDir = option('cpu-prof', '');
const out = option('out', join(root, 'bench', 'scale-results.json'));
// Every child is bounded: a crawl that does not end is killed, and that is a figure too.
const childTimeoutMs = Number(option('timeout', String(15 * 60_000)));

interface Measured {
  code: number | null;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  stdout: string;
  stderr: string;
  killed: boolean;
}

/** cmd under GNU time (CPU, peak RSS), wall time measured here; killed past timeoutMs. */
function measured(args: string[], timeoutMs = childTimeoutMs): Promise<Measured> {
  const timeFile = join(tmp, `time-${process.hrtime.bigint()}.txt`);
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%e %U %S %M', '-o', timeFile, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-2_000_000)));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const t = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) : [];
      rmSync(timeFile, { force: true });
      resolve({ code, seconds: (performance.now() - t0) / 1000, cpuSeconds: (t[1] ?? NaN) + (t[2] ?? NaN), peakRssMb: (t[3] ?? NaN) / 1024, stdout, stderr, killed });
    });
  });
}

const beebot = (db: string, args: string[], nodeArgs: string[] = []) => (nodeArgs.length ? [process.execPath, ...nodeArgs, bin, '--db', db, ...args] : [bin, '--db', db, ...args]);

async function must(what: string, args: string[]): Promise<Measured> {
  const m = await measured(args);
  if (m.code !== 0) throw new Error(`${what} exited ${m.code}: ${m.stderr.slice(-600)}`);
  return m;
}

const removeDb = (db: string) => ['', '-wal', '-shm', '.seeds'].forEach((ext) => rmSync(db + ext, { force: true }));

/** A port nothing listens on: one the kernel gave us, closed again. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The summary's lines: what the crawl printed to stdout, and to stderr past its per-page lines. */
const summaryLines = (m: Measured) => m.stdout.split('\n').filter(Boolean).length;

async function seeded(name: string, sites: number, port: number): Promise<string> {
  const db = join(tmp, `${name}.db`);
  writeFileSync(`${db}.seeds`, Array.from({ length: sites }, (_, i) => `http://${siteHost(i)}:${port}/`).join('\n'));
  await must('seeds import', beebot(db, ['seeds', 'import', `${db}.seeds`]));
  return db;
}

interface CrawlRow {
  sites: number;
  pages: number;
  seconds: number;
  msPerPage: number;
  cpuSeconds: number;
  peakRssMb: number;
  summaryLines: number;
}

const tmp = mkdtempSync(join(os.tmpdir(), 'beebot-bench-scale-'));
const cfg: WebConfig = { sites: Math.max(...siteCounts, ...deadSites, 1), pagesPerSite: 200, soloPages: 0, fanout: 1000, seed: 1 };
const web = await startBenchWeb(cfg);
const proxy = `http://127.0.0.1:${web.port}`;
const results: { crawl: CrawlRow[]; dead: unknown[]; import: unknown[] } = { crawl: [], dead: [], import: [] };
log(`beebot bench:scale: ${os.cpus().length} cores, Node ${process.version}; web of ${cfg.sites} sites x ${cfg.pagesPerSite} pages on ${proxy}; scratch ${tmp}`);
try {
  if (parts.has('crawl')) {
    const runs = new Map<number, CrawlRow[]>(siteCounts.map((n) => [n, []]));
    for (let rep = 0; rep < reps; rep++) {
      for (const n of rep % 2 ? [...siteCounts].reverse() : siteCounts) {
        const db = await seeded(`crawl-${n}`, n, web.port);
        const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=crawl-${n}-${rep}.cpuprofile`, '--max-semi-space-size=8', '--no-allocation-site-pretenuring'] : [];
        const m = await must(`crawl of ${n} sites`, beebot(db, ['crawl', '--proxy', proxy, '--delay', '0', '--concurrency', '8', '--budget', String(budget)], prof));
        const pages = (JSON.parse((await must('status', beebot(db, ['status', '--json']))).stdout) as { totals: { pages_fetched: number } }).totals.pages_fetched;
        const row: CrawlRow = { sites: n, pages, seconds: m.seconds, msPerPage: (1000 * m.seconds) / pages, cpuSeconds: m.cpuSeconds, peakRssMb: m.peakRssMb, summaryLines: summaryLines(m) };
        runs.get(n)!.push(row);
        log(`  crawl rep ${rep + 1}, ${n} sites: ${pages} pages in ${m.seconds.toFixed(1)} s (${row.msPerPage.toFixed(2)} ms a page), CPU ${m.cpuSeconds.toFixed(1)} s, peak RSS ${m.peakRssMb.toFixed(0)} MB, summary ${row.summaryLines} lines`);
        removeDb(db);
      }
    }
    for (const n of siteCounts) {
      const rs = runs.get(n)!;
      results.crawl.push({
        sites: n, pages: median(rs.map((r) => r.pages)), seconds: median(rs.map((r) => r.seconds)), msPerPage: median(rs.map((r) => r.msPerPage)),
        cpuSeconds: median(rs.map((r) => r.cpuSeconds)), peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)), summaryLines: Math.max(...rs.map((r) => r.summaryLines)),
      });
    }
  }
  if (parts.has('dead')) {
    const port = await closedPort();
    for (const n of deadSites) {
      const db = await seeded(`dead-${n}`, n, web.port);
      await must('config set', beebot(db, ['config', 'set', 'retry-span', String(retrySpanMs)]));
      const m = await measured(beebot(db, ['crawl', '--proxy', `http://127.0.0.1:${port}`, '--delay', '0', '--concurrency', '8']), retrySpanMs + 10 * 60_000);
      const said = m.stderr.trim().split('\n').filter((l) => !/^\d+\t/.test(l)).slice(-2).join(' / ');
      results.dead.push({ sites: n, retrySpanMs, seconds: m.seconds, code: m.code, killed: m.killed, peakRssMb: m.peakRssMb, said });
      log(`  dead proxy, ${n} sites, retry-span ${retrySpanMs} ms: ${m.killed ? 'killed after' : `exit ${m.code} after`} ${m.seconds.toFixed(1)} s; said: ${said.slice(0, 300)}`);
      removeDb(db);
    }
  }
  if (parts.has('import')) {
    for (const [kind, host] of [['one registrable domain', (i: number) => `blog${i}.big.bench`], ['distinct domains', (i: number) => `blog${i}.bench`]] as const) {
      const db = join(tmp, 'import.db');
      writeFileSync(`${db}.seeds`, Array.from({ length: importHosts }, (_, i) => `http://${host(i)}/`).join('\n'));
      const m = await measured(beebot(db, ['seeds', 'import', `${db}.seeds`]));
      results.import.push({ hosts: importHosts, kind, seconds: m.seconds, code: m.code, killed: m.killed, peakRssMb: m.peakRssMb });
      log(`  seeds import, ${importHosts} hosts, ${kind}: ${m.killed ? 'killed after' : `exit ${m.code} after`} ${m.seconds.toFixed(1)} s, peak RSS ${m.peakRssMb.toFixed(0)} MB`);
      removeDb(db);
    }
  }
} finally {
  await web.close();
  rmSync(tmp, { recursive: true, force: true });
}

const lines: string[] = [];
if (results.crawl.length) {
  const base = results.crawl[0]!;
  lines.push(`== crawl through a proxy: budget ${budget}, C = 8, --delay 0, default order and policy; ${reps} run(s) each (medians, RSS max) ==`);
  lines.push('| sites | pages | s | ms a page | vs first | CPU s | peak RSS MB | summary lines |', '|---|---|---|---|---|---|---|---|');
  for (const r of results.crawl) {
    lines.push(`| ${r.sites} | ${r.pages} | ${r.seconds.toFixed(1)} | ${r.msPerPage.toFixed(2)} | ${(r.msPerPage / base.msPerPage).toFixed(2)} | ${r.cpuSeconds.toFixed(1)} | ${r.peakRssMb.toFixed(0)} | ${r.summaryLines} |`);
  }
}
for (const d of results.dead as { sites: number; seconds: number; code: number; killed: boolean; said: string }[]) {
  lines.push(`dead proxy, ${d.sites} sites, retry-span ${retrySpanMs} ms: ${d.killed ? 'still running, killed after' : `exit ${d.code} after`} ${d.seconds.toFixed(1)} s: ${d.said.slice(0, 400)}`);
}
for (const x of results.import as { hosts: number; kind: string; seconds: number; code: number }[]) lines.push(`seeds import of ${x.hosts} hosts, ${x.kind}: ${x.seconds.toFixed(1)} s (exit ${x.code})`);
console.log(lines.join('\n'));
writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), budget, reps, results }, null, 2)}\n`);
log(`results written to ${out}`);
