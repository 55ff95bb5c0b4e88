// `npm run bench:resume`: a crawl with a million queued pages, killed with SIGKILL halfway through
// a window and resumed, against the same window uninterrupted. It prints the resumed run's time to
// its first page and peak RSS, and whether both runs fetched the same pages and stored the same
// links (they must: the database is the record, and a solo crawl's order does not depend on timing).
//   node dist/scripts/bench-resume.js [--queued 1000000] [--window 1000] [--sites 10]
// Figures, not assertions: a mismatch is printed and the exit code is 1.
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBenchWeb } from '../bench/web-server.js';
import { defaultWeb, wideHost } from '../bench/web.js';

const { values } = parseArgs({ options: { queued: { type: 'string' }, window: { type: 'string' }, sites: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log('usage: npm run bench:resume -- [--queued 1000000] [--window 1000] [--sites 10]');
  process.exit(0);
}
const queuedTarget = Number(values.queued ?? 1_000_000);
const windowPages = Number(values.window ?? 1000);
const sites = Number(values.sites ?? 10);

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'beebot.js');
const tmp = mkdtempSync(join(os.tmpdir(), 'beebot-resume-'));
const log = (s: string) => process.stderr.write(`${s}\n`);
const web = await startBenchWeb(defaultWeb);
const k = Math.max(1, Math.round(queuedTarget / (sites * defaultWeb.fanout)));
const hosts = Array.from({ length: sites }, (_, i) => wideHost(i, k));
const resolve = hosts.flatMap((h) => ['--resolve', `${h}:${web.port}:127.0.0.1`]);

function cli(db: string, args: string[]): string {
  const r = spawnSync(process.execPath, [bin, '--db', db, ...args], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`beebot ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

interface Run {
  code: number | null;
  seconds: number;
  /** from the process's start to its first page line */
  firstPageSeconds: number;
  peakRssMb: number;
  pages: number;
}

/** A crawl under GNU time; killAfter: SIGKILL once that many page lines were printed. */
function crawl(db: string, args: string[], killAfter = Infinity): Promise<Run> {
  const timeFile = join(tmp, `time-${process.hrtime.bigint()}.txt`);
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, process.execPath, bin, '--db', db, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let pages = 0;
  let first = NaN;
  let partial = '';
  child.stderr.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      if (!/^\d+\t/.test(l)) continue;
      if (pages++ === 0) first = (performance.now() - t0) / 1000;
      // time's child is node: kill it, not time, so the crawl dies without a word
      if (pages === killAfter) {
        for (const pid of readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)) process.kill(Number(pid), 'SIGKILL');
      }
    }
  });
  return new Promise((done) =>
    child.on('close', (code) => {
      const rss = existsSync(timeFile) ? Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) / 1024 : NaN;
      done({ code, seconds: (performance.now() - t0) / 1000, firstPageSeconds: first, peakRssMb: rss, pages });
    }),
  );
}

/** What a crawl leaves: every page's URL, status and level, and the three link tables, as sorted text. */
function record(db: string): { pages: string[]; links: Record<string, number>; queued: number } {
  const d = new Database(db, { readonly: true });
  const pages = (d.prepare(`SELECT url || ' ' || status || ' ' || level FROM pages WHERE status <> 'queued' ORDER BY url`).pluck().all() as string[]);
  const links: Record<string, number> = {};
  for (const t of ['edges', 'external_links', 'bad_links']) {
    const has = d.prepare(`SELECT count(*) FROM sqlite_master WHERE name = ?`).pluck().get(t) as number;
    if (has) links[t] = d.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  }
  const queued = d.prepare(`SELECT count(*) FROM pages WHERE status = 'queued'`).pluck().get() as number;
  d.close();
  return { pages, links, queued };
}

const copy = (from: string, to: string) => ['', '-wal'].forEach((ext) => existsSync(from + ext) && copyFileSync(from + ext, to + ext));
const bytes = (db: string) => ['', '-wal'].reduce((n, ext) => n + (statSync(db + ext, { throwIfNoEntry: false })?.size ?? 0), 0);

try {
  const base = join(tmp, 'base.db');
  writeFileSync(join(tmp, 'seeds.txt'), hosts.map((h) => `http://${h}:${web.port}/`).join('\n'));
  cli(base, ['seeds', 'import', join(tmp, 'seeds.txt')]);
  cli(base, ['config', 'set', 'max-pages-per-site', String(1 + k)]);
  log(`filling the frontier: ${sites} sites x ${k} wide pages of ${defaultWeb.fanout} links ...`);
  const fill = await crawl(base, ['crawl', '--delay', '0', '--policy', 'round-robin', '--order', 'bfs', '--concurrency', '8', ...resolve]);
  if (fill.code !== 0) throw new Error(`the fill crawl exited ${fill.code}`);
  cli(base, ['config', 'set', 'max-pages-per-site', 'none']);
  const filled = record(base).pages.length;
  // The default order and policy from here on; one page scores the queue the fill left unscored,
  // so both runs below start from a crawl already under way in its own order.
  const common = ['crawl', '--delay', '0', '--concurrency', '1', '--order', 'value', '--policy', 'pages', ...resolve];
  const warm = await crawl(base, [...common, '--budget', String(filled + 1)]);
  if (warm.code !== 0) throw new Error(`the first value-ordered page exited ${warm.code}`);
  const start = record(base);
  log(`${start.queued.toLocaleString('en-US')} pages queued, ${start.pages.length} fetched, database ${(bytes(base) / 2 ** 20).toFixed(0)} MB`);
  const budget = ['--budget', String(start.pages.length + windowPages)];

  const whole = join(tmp, 'whole.db');
  copy(base, whole);
  log(`uninterrupted window of ${windowPages} pages ...`);
  const a = await crawl(whole, [...common, ...budget]);
  const killed = join(tmp, 'killed.db');
  copy(base, killed);
  log(`the same window, killed (SIGKILL) after ${windowPages / 2} pages, then resumed ...`);
  const b1 = await crawl(killed, [...common, ...budget], windowPages / 2);
  const b2 = await crawl(killed, [...common, ...budget]);
  const ra = record(whole);
  const rb = record(killed);
  const samePages = ra.pages.length === rb.pages.length && ra.pages.every((p, i) => p === rb.pages[i]);
  const sameLinks = JSON.stringify(ra.links) === JSON.stringify(rb.links) && ra.queued === rb.queued;
  const n = (x: number) => x.toLocaleString('en-US');
  console.log(`queued at the start: ${n(start.queued)} pages (${sites} sites), database ${(bytes(base) / 2 ** 20).toFixed(0)} MB`);
  console.log(`uninterrupted: ${n(a.pages)} pages in ${a.seconds.toFixed(1)} s, first page after ${a.firstPageSeconds.toFixed(1)} s, peak RSS ${a.peakRssMb.toFixed(0)} MB`);
  console.log(`killed after ${n(b1.pages)} pages (exit ${b1.code ?? 'signal'}), then resumed: ${n(b2.pages)} pages in ${b2.seconds.toFixed(1)} s, first page after ${b2.firstPageSeconds.toFixed(1)} s (time to resume), peak RSS ${Math.max(b1.peakRssMb, b2.peakRssMb).toFixed(0)} MB`);
  console.log(`fetched pages: ${samePages ? 'the same' : 'DIFFERENT'} (${n(ra.pages.length)} and ${n(rb.pages.length)}); links and queue: ${sameLinks ? 'the same' : 'DIFFERENT'} (${JSON.stringify(ra.links)} ${n(ra.queued)} queued; ${JSON.stringify(rb.links)} ${n(rb.queued)} queued)`);
  process.exitCode = samePages && sameLinks ? 0 : 1;
} finally {
  await web.close();
  rmSync(tmp, { recursive: true, force: true });
}
