// `npm run bench`: beebot against Crawlee's CheerioCrawler and wget on a generated
// loopback web, contenders alternating, repeated, medians printed; the parse-bound limit measured
// in the same run; a scale run up to 1M stored links. Figures, not assertions: the table goes to
// stdout, progress to stderr, everything also to bench/results.json. `--quick` for a smoke run,
// `--help` for the parameters. The pieces are in bench/ (web, parse-bound, ceiling, report).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatProfile, hotLines, selfTimes, type CpuProfile, type SelfRow } from '../bench/cpu-profile.js';
import type { Ceiling } from '../bench/fetch-ceiling.js';
import { benchOptions, USAGE, type BenchOptions } from '../bench/options.js';
import type { ParseBound } from '../bench/parse-bound.js';
import {
  ceilingLine, comparisonTable, fmtInt, median, parseTable, scaleTable, summarize, targets, targetTable, type Run, type ScaleStage,
} from '../bench/report.js';
import { startBenchWeb, type BenchWeb } from '../bench/web-server.js';
import { SOLO_HOST, siteHost, wideHost, type WebConfig } from '../bench/web.js';
import { defaults } from '../src/store/settings.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const benchDir = join(root, 'bench');
const bin = join(root, 'bin', 'beebot.js');
const distBench = join(root, 'dist', 'bench');
const TIME = '/usr/bin/time';
// Every child is bounded: a hung contender is killed and reported, the benchmark goes on.
const CHILD_TIMEOUT_MS = Number(process.env.BENCH_CHILD_TIMEOUT_MS ?? 20 * 60_000);

const log = (s: string) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------
// Running and measuring one child process.

interface Measured {
  code: number | null;
  stdout: string;
  /** The last 4 KB of stderr (the per-page lines of a crawl are streamed to onLine, not kept). */
  stderrTail: string;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  /** What the test server saw and spent meanwhile (it runs in this process). */
  requests: number;
  bodyBytes: number;
  connections: number;
  serverCpuSeconds: number;
  /** Busy CPU of the whole machine meanwhile: beyond child + server it is somebody else's work. */
  machineCpuSeconds: number;
}

/** Busy CPU seconds of the whole machine so far (all cores, /proc/stat; USER_HZ is 100 on Linux). */
function machineBusySeconds(): number {
  const f = /^cpu +(.*)$/m.exec(readFileSync('/proc/stat', 'utf8'));
  if (!f) return NaN;
  const [user, nice, system, , , irq, softirq, steal] = f[1]!.trim().split(/\s+/).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
}

/**
 * Runs cmd under GNU time (CPU seconds and peak RSS of the child, children included), wall time
 * measured here. The child gets its own process group so a timeout can stop all of it by id.
 */
function measured(cmd: string, args: string[], o: { env?: NodeJS.ProcessEnv; onLine?: (line: string, ms: number) => void } = {}): Promise<Measured> {
  const timeFile = join(tmp, `time-${process.hrtime.bigint()}.txt`);
  const counted = { ...web.counters };
  const cpu = process.cpuUsage();
  const busy = machineBusySeconds();
  const t0 = performance.now();
  const child = spawn(TIME, ['-f', '%e %U %S %M', '-o', timeFile, cmd, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'], env: o.env ?? process.env, detached: true,
  });
  let stdout = '';
  let tail = '';
  let partial = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => {
    const s = d.toString();
    tail = (tail + s).slice(-4096);
    if (!o.onLine) return;
    const now = performance.now();
    const lines = (partial + s).split('\n');
    partial = lines.pop()!;
    for (const l of lines) o.onLine(l, now);
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, CHILD_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const seconds = (performance.now() - t0) / 1000;
      const server = process.cpuUsage(cpu);
      const t = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) : [];
      rmSync(timeFile, { force: true });
      resolve({
        code, stdout, stderrTail: tail, seconds, cpuSeconds: (t[1] ?? NaN) + (t[2] ?? NaN), peakRssMb: (t[3] ?? NaN) / 1024,
        requests: web.counters.requests - counted.requests,
        bodyBytes: web.counters.bytes - counted.bytes,
        connections: web.counters.connections - counted.connections,
        serverCpuSeconds: (server.user + server.system) / 1e6,
        machineCpuSeconds: machineBusySeconds() - busy,
      });
    });
  });
}

/** Cores' worth of CPU that neither the child nor the test server used during a run (noise). */
const otherShare = (m: Measured) => Math.max(0, m.machineCpuSeconds - m.cpuSeconds - m.serverCpuSeconds) / m.seconds;

/**
 * The machine is shared (2 cores): a run during which other processes used more than NOISE cores
 * is repeated, up to twice, and the quietest attempt is kept. Every noisy attempt is reported.
 * Under half a CPU second of others' work is never noise: /proc/stat counts in 10 ms ticks, and
 * the kernel's own loopback and disk work shows there too, which on a one-second run looks big.
 */
const NOISE = Number(process.env.BENCH_NOISE ?? 0.15);
const noisy: { what: string; otherCpuShare: number }[] = [];
async function quiet<T>(what: string, f: () => Promise<T>, other: (x: T) => [share: number, seconds: number]): Promise<T> {
  let best: { x: T; share: number } | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const x = await f();
    const [share, seconds] = other(x);
    if (!best || share < best.share) best = { x, share };
    if (share <= NOISE || share * seconds < 0.5) break;
    noisy.push({ what, otherCpuShare: share });
    log(`  ${what}: other processes used ${share.toFixed(2)} cores meanwhile; ${attempt < 2 ? 'repeating' : 'keeping the quietest attempt'}`);
  }
  return best!.x;
}
const runOther = (r: Run): [number, number] => [Math.max(0, r.machineCpuSeconds - r.cpuSeconds - r.serverCpuSeconds) / r.seconds, r.seconds];

/** A beebot command that is not measured (seeds, config, status). */
function cli(db: string, args: string[]): string {
  const r = spawnSync(process.execPath, [bin, '--db', db, ...args], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`beebot ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

interface Totals {
  pages_fetched: number;
  frontier: number;
  internal: number;
  external: number;
  bad: number;
}
const totals = (db: string): Totals => (JSON.parse(cli(db, ['status', '--json'])) as { totals: Totals }).totals;
const dbBytes = (db: string) => ['', '-wal', '-shm'].reduce((n, ext) => n + (statSync(db + ext, { throwIfNoEntry: false })?.size ?? 0), 0);
const removeDb = (db: string) => ['', '-wal', '-shm', '.seeds'].forEach((ext) => rmSync(db + ext, { force: true }));

// ---------------------------------------------------------------------------------------------
// Tools: installed when missing, as the issue asks (Debian's wget and time, crawlee in bench/).

function sh(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

function aptInstall(pkg: string): string | null {
  log(`installing Debian package ${pkg} ...`);
  let r = sh('apt-get', ['install', '-y', '--no-install-recommends', pkg]);
  if (!r.ok) {
    sh('apt-get', ['update']);
    r = sh('apt-get', ['install', '-y', '--no-install-recommends', pkg]);
  }
  return r.ok ? null : r.out.trim().split('\n').slice(-3).join(' / ');
}

function ensureCrawlee(): string | null {
  if (existsSync(join(benchDir, 'node_modules', 'crawlee', 'package.json'))) return null;
  const lock = existsSync(join(benchDir, 'package-lock.json'));
  log(`installing the benchmark's own dependencies: npm ${lock ? 'ci' : 'install'} --prefix bench ...`);
  const r = sh('npm', [lock ? 'ci' : 'install', '--prefix', benchDir, '--no-audit', '--no-fund']);
  return r.ok ? null : r.out.trim().split('\n').slice(-5).join(' / ');
}

function versionOf(cmd: string, args: string[], re: RegExp): string | null {
  const r = sh(cmd, args);
  return re.exec(r.out)?.[1] ?? null;
}

// ---------------------------------------------------------------------------------------------
// The contenders.

const resolveArgs = (hosts: string[], port: number) => hosts.flatMap((h) => ['--resolve', `${h}:${port}:127.0.0.1`]);

/** The Node flags on the bin's `#!/usr/bin/env -S node …` line. */
function binNodeFlags(): string[] {
  const first = readFileSync(bin, 'utf8').split('\n', 1)[0]!;
  return first.replace(/^#!.*?\bnode\b/, '').trim().split(/\s+/).filter(Boolean);
}

/** A fresh database with these sites, then one measured crawl; the database is removed after. */
async function beebotCrawl(name: string, hosts: string[], crawlArgs: string[], nodeArgs: string[] = [], run: { delay?: number; order?: string | null } = {}) {
  const db = join(tmp, `${name}.db`);
  writeFileSync(`${db}.seeds`, hosts.map((h) => `http://${h}:${web.port}/`).join('\n'));
  cli(db, ['seeds', 'import', `${db}.seeds`]);
  // The bin itself, as a user runs it (its #! line carries beebot's Node flags); with extra Node
  // flags (--cpu-prof, which NODE_OPTIONS refuses), node with the #! line's flags and those.
  const [cmd, args] = nodeArgs.length ? [process.execPath, [...binNodeFlags(), ...nodeArgs, bin]] : [bin, []];
  const chosen = run.order === undefined ? o.order : run.order;
  const order = chosen ? ['--order', chosen] : [];
  const m = await measured(cmd, [...args, '--db', db, 'crawl', '--delay', String(run.delay ?? 0), '--policy', 'round-robin', ...order, ...crawlArgs, ...resolveArgs(hosts, web.port)]);
  if (m.code !== 0) throw new Error(`beebot crawl exited ${m.code}: ${m.stderrTail.slice(-600)}`);
  const t = totals(db);
  const size = dbBytes(db);
  removeDb(db);
  return { m, t, size };
}

function toRun(contender: Run['contender'], job: Run['job'], rep: number, m: Measured, pages: number, external: number | null, dbBytes: number | null): Run {
  return {
    contender, job, rep, pages, external, seconds: m.seconds, cpuSeconds: m.cpuSeconds, peakRssMb: m.peakRssMb, dbBytes,
    requests: m.requests, bodyBytes: m.bodyBytes, connections: m.connections, serverCpuSeconds: m.serverCpuSeconds, machineCpuSeconds: m.machineCpuSeconds,
  };
}

async function runWeb(o: BenchOptions, contender: 'beebot' | 'crawlee', rep: number): Promise<Run> {
  const hosts = Array.from({ length: o.sites }, (_, i) => siteHost(i));
  if (contender === 'beebot') {
    const { m, t, size } = await beebotCrawl(`web-${rep}`, hosts, ['--budget', String(o.budget), '--concurrency', String(o.concurrency)]);
    return toRun(contender, 'web', rep, m, t.pages_fetched, t.external, size);
  }
  const storage = join(tmp, `crawlee-${rep}`);
  const job = JSON.stringify({ seeds: hosts.map((h) => `http://${h}:${web.port}/`), budget: o.budget, concurrency: o.concurrency });
  const m = await measured(process.execPath, [join(benchDir, 'crawlee-run.mjs'), job], { env: { ...process.env, CRAWLEE_STORAGE_DIR: storage } });
  rmSync(storage, { recursive: true, force: true });
  const line = m.stdout.trim().split('\n').pop() ?? '';
  if (m.code !== 0 || !line.startsWith('{')) throw new Error(`crawlee exited ${m.code}: ${m.stderrTail.slice(-800)}`);
  const c = JSON.parse(line) as { pages: number; external: number };
  return toRun(contender, 'web', rep, m, c.pages, c.external, null);
}

/**
 * The order stage: what beebot's default order (the link-value model) costs against --order bfs
 * on the comparison web, CPU-bound (--delay 0) and at the default politeness delay.
 */
async function runOrder(o: BenchOptions, contender: 'bfs' | 'default', delay: number, rep: number): Promise<Run> {
  const hosts = Array.from({ length: o.sites }, (_, i) => siteHost(i));
  const args = ['--budget', String(o.orderBudget), '--concurrency', String(o.concurrency)];
  const { m, t, size } = await beebotCrawl(`order-${delay}-${contender}-${rep}`, hosts, args, [], { delay, order: contender === 'bfs' ? 'bfs' : null });
  return toRun(contender, `order ${delay}`, rep, m, t.pages_fetched, t.external, size);
}
const ORDER_DELAYS = [0, defaults.delay];

/** One whole site, one connection: wget -r (its own recursion, level 5 like beebot's default). */
async function runSingle(contender: 'beebot' | 'wget', rep: number): Promise<Run> {
  if (contender === 'beebot') {
    const { m, t, size } = await beebotCrawl(`solo-${rep}`, [SOLO_HOST], ['--concurrency', '1']);
    return toRun(contender, 'single-site', rep, m, t.pages_fetched, t.external, size);
  }
  const dir = join(tmp, `wget-${rep}`);
  mkdirSync(dir);
  const m = await measured('wget', [
    '--recursive', '--level=5', '--no-parent', '--delete-after', '-e', 'robots=off', '--no-verbose',
    '-e', 'use_proxy=on', '-e', `http_proxy=http://127.0.0.1:${web.port}`, '-P', dir, `http://${SOLO_HOST}:${web.port}/`,
  ]);
  rmSync(dir, { recursive: true, force: true });
  // Exit 8 = some response was an error (the 404s of hrefs wget finds inside <script>).
  const files = /Downloaded: (\d+) files/.exec(m.stderrTail);
  if ((m.code !== 0 && m.code !== 8) || !files) throw new Error(`wget exited ${m.code}: ${m.stderrTail.slice(-600)}`);
  return toRun(contender, 'single-site', rep, m, Number(files[1]), null, null);
}

/**
 * A scale stage's database: sites whose root links K wide pages of `fanout` new URLs each. A crawl
 * capped at 1 + K pages per site stores sites × K × fanout URLs; timed windows then fetch ordinary
 * leaf pages (links to stored leaves, a few new ones). Each window runs on a fresh copy of the
 * filled database, so every repetition starts from the same store (windows would otherwise grow
 * the small stage by tens of percent).
 */
interface StageDb {
  links: number;
  db: string;
  common: string[];
  prefill: ScaleStage['prefill'];
  storedLinks: number;
  frontier: number;
  windows: Measured[];
  pages: number[];
  steady: number[];
}

async function prefillStage(o: BenchOptions, cfg: WebConfig, links: number): Promise<StageDb> {
  const k = Math.max(1, Math.round(links / (o.scaleSites * cfg.fanout)));
  const hosts = Array.from({ length: o.scaleSites }, (_, i) => wideHost(i, k));
  const db = join(tmp, `scale-${k}.db`);
  writeFileSync(`${db}.seeds`, hosts.map((h) => `http://${h}:${web.port}/`).join('\n'));
  cli(db, ['seeds', 'import', `${db}.seeds`]);
  cli(db, ['config', 'set', 'max-pages-per-site', String(1 + k)]);
  const common = ['crawl', '--delay', '0', '--policy', 'round-robin', '--concurrency', String(o.concurrency), ...resolveArgs(hosts, web.port)];
  // Breadth-first fills the store as the stage is built (the root, then its K wide pages); another
  // order would spend the cap elsewhere. The timed windows then run the order being measured.
  const pre = await measured(bin, ['--db', db, ...common, '--order', 'bfs']);
  if (pre.code !== 0) throw new Error(`beebot crawl (scale prefill) exited ${pre.code}: ${pre.stderrTail.slice(-600)}`);
  cli(db, ['config', 'set', 'max-pages-per-site', 'none']);
  const t = totals(db);
  return {
    links, db, common: [...common, '--order', o.order ?? defaults.order], prefill: { pages: t.pages_fetched, seconds: pre.seconds, peakRssMb: pre.peakRssMb },
    storedLinks: t.internal, frontier: t.frontier, windows: [], pages: [], steady: [],
  };
}

/** One timed window of `scaleWindow` pages, timed page by page from beebot's per-page lines. */
interface Window {
  m: Measured;
  pages: number;
  steady: number;
}

async function scaleWindow(o: BenchOptions, st: StageDb): Promise<Window> {
  const db = `${st.db}.window`;
  for (const ext of ['', '-wal']) if (existsSync(st.db + ext)) copyFileSync(st.db + ext, db + ext);
  const stamps: number[] = [];
  const m = await measured(bin, ['--db', db, ...st.common, '--budget', String(st.prefill.pages + o.scaleWindow)], {
    onLine: (line, ms) => {
      if (/^\d+\t/.test(line)) stamps.push(ms);
    },
  });
  if (m.code !== 0) throw new Error(`beebot crawl (scale window) exited ${m.code}: ${m.stderrTail.slice(-600)}`);
  const pages = totals(db).pages_fetched - st.prefill.pages;
  removeDb(db);
  // From the first page to the last: the process start and the first connections are left out.
  return { m, pages, steady: stamps.length > 1 ? (stamps.length - 1) / ((stamps.at(-1)! - stamps[0]!) / 1000) : NaN };
}

function stageResult(st: StageDb): ScaleStage {
  const pages = median(st.pages);
  return {
    storedLinks: st.storedLinks,
    frontier: st.frontier,
    prefill: st.prefill,
    window: {
      runs: st.windows.length,
      pages,
      steadyPagesPerSecond: median(st.steady),
      endToEndPagesPerSecond: median(st.windows.map((m) => pages / m.seconds)),
      peakRssMb: Math.max(...st.windows.map((m) => m.peakRssMb)),
      cpuSecondsPer1000: median(st.windows.map((m) => (1000 * m.cpuSeconds) / pages)),
      otherCpuShare: median(st.windows.map(otherShare)),
    },
    dbMb: dbBytes(st.db) / 2 ** 20,
  };
}

async function nodeJson<T>(script: string, job: unknown): Promise<T & { otherCpuShare: number; seconds: number }> {
  const m = await measured(process.execPath, [join(distBench, script), JSON.stringify(job)]);
  if (m.code !== 0) throw new Error(`${script} exited ${m.code}: ${m.stderrTail.slice(-600)}`);
  return { ...(JSON.parse(m.stdout.trim().split('\n').pop()!) as T), otherCpuShare: otherShare(m), seconds: m.seconds };
}

/** beebot's crawl of the comparison web under --cpu-prof: where one core's time goes. */
async function profileCrawl(o: BenchOptions): Promise<{ rows: SelfRow[]; lines: ReturnType<typeof hotLines>; file: string; pagesPerSecond: number; otherCpuShare: number; seconds: number }> {
  const dir = join(tmp, 'profile');
  const hosts = Array.from({ length: o.sites }, (_, i) => siteHost(i));
  const { m, t } = await beebotCrawl('profile', hosts, ['--budget', String(o.budget), '--concurrency', String(o.concurrency)], ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const name = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const file = join(os.tmpdir(), 'beebot-crawl.cpuprofile');
  const text = readFileSync(join(dir, name), 'utf8');
  writeFileSync(file, text);
  rmSync(dir, { recursive: true, force: true });
  const parsed = JSON.parse(text) as CpuProfile;
  return { rows: selfTimes(parsed), lines: hotLines(parsed, 10), file, pagesPerSecond: t.pages_fetched / m.seconds, otherCpuShare: otherShare(m), seconds: m.seconds };
}

// ---------------------------------------------------------------------------------------------

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
let o: BenchOptions;
try {
  o = benchOptions(process.argv.slice(2), process.env, join(benchDir, 'results.json'));
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}

const problems: Record<string, string> = {};
if (!existsSync(TIME)) {
  const e = aptInstall('time');
  if (e) {
    console.error(`bench needs GNU time (${TIME}) to measure CPU and peak RSS of the contenders, and could not install it: ${e}`);
    process.exit(1);
  }
}
if (o.parts.has('web')) {
  const e = ensureCrawlee();
  if (e) problems.crawlee = `crawlee could not be installed (npm --prefix bench): ${e}`;
}
if (o.parts.has('single') && !sh('wget', ['--version']).ok) {
  const e = aptInstall('wget');
  if (e) problems.wget = `wget could not be installed: ${e}`;
}

const cfg: WebConfig = { sites: o.sites, pagesPerSite: o.pagesPerSite, soloPages: o.soloPages, fanout: 1000, seed: 1 };
const machine = {
  cores: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  os: `${os.type()} ${os.release()}`,
  crawlee: existsSync(join(benchDir, 'node_modules', 'crawlee', 'package.json'))
    ? (JSON.parse(readFileSync(join(benchDir, 'node_modules', 'crawlee', 'package.json'), 'utf8')) as { version: string }).version
    : null,
  wget: versionOf('wget', ['--version'], /GNU Wget (\S+)/),
  beebotCommit: versionOf('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], /^(\w+)/),
};

const tmp = mkdtempSync(join(os.tmpdir(), 'beebot-bench-'));
const web: BenchWeb = await startBenchWeb(cfg);
const started = performance.now();
const runs: Run[] = [];
let parse: (ParseBound & { otherCpuShare: number }) | null = null;
let ceiling: (Ceiling & { otherCpuShare: number }) | null = null;
const scale: ScaleStage[] = [];
let profile: Awaited<ReturnType<typeof profileCrawl>> | null = null;
try {
  log(`beebot bench: ${machine.cores} cores, Node ${machine.node}; server on 127.0.0.1:${web.port}; scratch ${tmp}`);
  if (o.parts.has('parse')) {
    log(`parse-bound: ${o.parsePages} pages from memory, ${o.parseRounds} rounds ...`);
    parse = await quiet('parse-bound', () => nodeJson<ParseBound>('parse-bound.js', { web: cfg, pages: o.parsePages, rounds: o.parseRounds, port: web.port }), (x) => [x.otherCpuShare, x.seconds]);
  }
  if (o.parts.has('ceiling')) {
    log(`serving ceiling: ${o.ceilingPages} pages at concurrency ${o.concurrency} ...`);
    ceiling = await quiet('serving ceiling', () => nodeJson<Ceiling>('fetch-ceiling.js', { port: web.port, sites: o.sites, pagesPerSite: o.pagesPerSite, pages: o.ceilingPages, concurrency: o.concurrency }), (x) => [x.otherCpuShare, x.seconds]);
  }
  const say = (r: Run) =>
    log(`  ${r.job} rep ${r.rep + 1} ${r.contender}: ${r.pages} pages, ${r.external ?? '-'} ext, ${r.seconds.toFixed(1)} s, ${(r.pages / r.seconds).toFixed(1)} pages/s, ${r.peakRssMb.toFixed(0)} MB`);
  const attempt = async (name: string, f: () => Promise<Run>) => {
    if (problems[name]) return;
    try {
      const r = await quiet(name, f, runOther);
      runs.push(r);
      say(r);
    } catch (err) {
      problems[name] = (err as Error).message;
      log(`  ${name} failed: ${problems[name]}`);
    }
  };
  // Contenders alternate, and who goes first alternates too, so drift hits both alike.
  if (o.parts.has('web')) {
    log(`comparison web: ${o.sites} sites x ${o.pagesPerSite} pages, budget ${o.budget}, concurrency ${o.concurrency}, ${o.reps} reps ...`);
    for (let rep = 0; rep < o.reps; rep++) {
      for (const c of rep % 2 ? (['crawlee', 'beebot'] as const) : (['beebot', 'crawlee'] as const)) await attempt(c, () => runWeb(o, c, rep));
    }
  }
  if (o.parts.has('order')) {
    log(`order: the default order against --order bfs, budget ${o.orderBudget}, --delay ${ORDER_DELAYS.join(' and ')}, ${o.reps} reps ...`);
    for (let rep = 0; rep < o.reps; rep++) {
      for (const delay of ORDER_DELAYS) {
        for (const c of rep % 2 ? (['default', 'bfs'] as const) : (['bfs', 'default'] as const)) await attempt(`order ${c} --delay ${delay}`, () => runOrder(o, c, delay, rep));
      }
    }
  }
  if (o.parts.has('single')) {
    log(`single site: ${SOLO_HOST}, ${o.soloPages} pages, crawled whole, one connection, ${o.reps} reps ...`);
    for (let rep = 0; rep < o.reps; rep++) {
      for (const c of rep % 2 ? (['beebot', 'wget'] as const) : (['wget', 'beebot'] as const)) await attempt(c === 'beebot' ? 'beebot (single site)' : c, () => runSingle(c, rep));
    }
  }
  if (o.parts.has('scale') && o.scale.length) {
    // Every stage's store is filled first; then the stages' timed windows alternate, rep by rep.
    const stages: StageDb[] = [];
    try {
      for (const links of o.scale) {
        log(`scale: filling a store with ${fmtInt(links)} links ...`);
        const st = await prefillStage(o, cfg, links);
        stages.push(st);
        log(`  ${fmtInt(st.storedLinks)} links stored by ${st.prefill.pages} pages in ${st.prefill.seconds.toFixed(1)} s, peak RSS ${st.prefill.peakRssMb.toFixed(0)} MB`);
      }
      for (let rep = 0; rep < o.scaleReps; rep++) {
        for (const st of rep % 2 ? [...stages].reverse() : stages) {
          const w = await quiet(`scale window at ${fmtInt(st.storedLinks)} links`, () => scaleWindow(o, st), (x) => [otherShare(x.m), x.m.seconds]);
          st.windows.push(w.m);
          st.pages.push(w.pages);
          st.steady.push(w.steady);
          log(`  window rep ${rep + 1} at ${fmtInt(st.storedLinks)} links: ${w.steady.toFixed(1)} pages/s, peak RSS ${w.m.peakRssMb.toFixed(0)} MB`);
        }
      }
      scale.push(...stages.map(stageResult));
    } catch (err) {
      problems.scale = (err as Error).message;
      log(`  scale failed: ${problems.scale}`);
    } finally {
      stages.forEach((st) => removeDb(st.db));
    }
  }
  if (o.profile) {
    log(`profile: beebot crawl of the comparison web under --cpu-prof, budget ${o.budget} ...`);
    try {
      profile = await quiet('profile', () => profileCrawl(o), (x) => [x.otherCpuShare, x.seconds]);
    } catch (err) {
      problems.profile = (err as Error).message;
      log(`  profile failed: ${problems.profile}`);
    }
  }
} finally {
  await web.close();
  rmSync(tmp, { recursive: true, force: true });
}

const summary = summarize(runs);
const bee = summary.find((s) => s.job === 'web' && s.contender === 'beebot');
const goals = targets(summary, parse, scale, runs);
const minutes = (performance.now() - started) / 60_000;
const noise = (share: number) => `other processes used ${share.toFixed(2)} cores meanwhile`;
const out: string[] = [
  `beebot benchmark${o.quick ? ' --quick' : ''}: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, ${machine.os}`,
  `contenders: beebot ${machine.beebotCommit ?? ''}, crawlee ${machine.crawlee ?? 'n/a'} (CheerioCrawler), GNU Wget ${machine.wget ?? 'n/a'}; ${minutes.toFixed(1)} min`,
];
if (parse) {
  out.push(
    `web: ${o.sites} sites x ${fmtInt(o.pagesPerSite)} pages; pages ${(parse.meanBytes / 1024).toFixed(0)} KB and ${parse.linksPerPage.toFixed(0)} links on average, ${parse.externalPerPage.toFixed(1)} external (${((100 * parse.externalPerPage) / parse.linksPerPage).toFixed(0)}%)`,
  );
}
if (o.parts.has('web')) {
  out.push('', `== comparison web: budget ${fmtInt(o.budget)} pages, --delay 0, concurrency ${o.concurrency} for both${o.order ? `, beebot --order ${o.order}` : ''}, ${o.reps} repetitions alternating (medians) ==`);
  out.push(...comparisonTable(summary, 'web', ['beebot', 'crawlee']));
}
if (ceiling) out.push(`${ceilingLine(ceiling)} (${noise(ceiling.otherCpuShare)})`);
if (o.parts.has('order')) {
  for (const delay of ORDER_DELAYS) {
    out.push('', `== the default order (${defaults.order}) against --order bfs: comparison web, budget ${fmtInt(o.orderBudget)} pages, --delay ${delay}${delay === defaults.delay ? ' (the default)' : ''}, concurrency ${o.concurrency}, ${o.reps} repetitions alternating (medians) ==`);
    out.push(...comparisonTable(summary, `order ${delay}`, ['default', 'bfs']));
  }
}
if (o.parts.has('single')) {
  out.push('', `== single site: ${SOLO_HOST}, ${fmtInt(o.soloPages)} pages crawled whole (level <= 5), one connection each, ${o.reps} repetitions (medians) ==`);
  out.push(...comparisonTable(summary, 'single-site', ['beebot', 'wget']));
}
if (parse) {
  out.push('', `== parse-bound limit: ${parse.pages} pages of the comparison web from memory, no network, no DB (median of ${o.parseRounds} rounds; ${noise(parse.otherCpuShare)}) ==`);
  out.push(...parseTable(parse, bee?.pagesPerSecond ?? null));
}
if (scale.length) {
  out.push('', `== scale: ${o.scaleSites} sites, wide pages of 1,000 new links fill the store, then windows of ${o.scaleWindow} ordinary pages are timed (concurrency ${o.concurrency}, ${o.scaleReps} windows per stage, alternating; medians, RSS max) ==`);
  out.push(...scaleTable(scale));
}
out.push('', ...targetTable(goals));
if (profile) {
  out.push('', `== where beebot's time goes: --cpu-prof of one crawl of the comparison web (${profile.pagesPerSecond.toFixed(1)} pages/s under the profiler; ${profile.file}) ==`);
  out.push('(a better-sqlite3 call runs SQLite inside the calling JS frame: commit.js and sqliteTransaction self time is mostly SQLite)');
  out.push(...formatProfile(profile.rows, 10));
  out.push('hottest lines of beebot (compiled dist/src/*.js; share of all samples):');
  out.push(...profile.lines.map((l) => `  ${(100 * l.share).toFixed(1).padStart(5)}%  ${l.where}`));
}
if (noisy.length) out.push('', `repeated because other processes used > ${NOISE} cores meanwhile: ${noisy.map((n) => `${n.what} (${n.otherCpuShare.toFixed(2)})`).join(', ')}`);
for (const [what, why] of Object.entries(problems)) out.push(`NOT RUN or FAILED: ${what}: ${why}`);
console.log(out.join('\n'));

if (o.out) {
  writeFileSync(
    o.out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(), machine, options: { ...o, parts: [...o.parts] }, web: cfg, parseBound: parse, servingCeiling: ceiling,
        summary, runs, scale, targets: goals, noisyAttempts: noisy, profile: profile && { file: profile.file, pagesPerSecond: profile.pagesPerSecond, top: profile.rows.filter((r) => r.area !== 'idle').slice(0, 30), hotLines: profile.lines },
        problems,
      },
      null,
      2,
    )}\n`,
  );
  log(`results written to ${o.out}`);
}
