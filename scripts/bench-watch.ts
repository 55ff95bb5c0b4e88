/**
 * bench:watch: revisit schedules for hub pages on the changing web, as the article's
 * Table 3 compares them. A web made mostly of hubs (items on a day/night and weekday/weekend
 * rhythm, with bursts) is served over loopback HTTP on a virtual clock and crawled by the real
 * CLI; its hubs are then watched in-process (src/watch/watcher.ts, the code of `beebot watch`)
 * for 30 days of simulated history at a fixed interval of 10 minutes. From a copy of that
 * database, each schedule then watches the same test period: the learned schedule, fixed
 * intervals from 10 s to 2 h, and the Poisson baseline. Each schedule runs in a worker process
 * with its own server and clock (two at a time), reached through --proxy.
 *
 * Measures (score.ts), over the test period: cost (fetches), hit rate (checks that found a new
 * item), mean delay (found − the item's true publication time, from the web's model), the share
 * of the period's items caught within it, and the weighted score against the fixed intervals.
 *
 *   npm run bench:watch                 (defaults: 1 site of 6 pages, 4 hubs, 5 test days, thresholds 0.5 and 0.2)
 *   node dist/scripts/bench-watch.js --test-days 2 --thresholds 1,0.3 --max-minutes 30 --min-group-items 300
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChangingWeb, type ChangingWeb } from '../fixtures/changing-web/model.js';
import { startChangingWeb } from '../fixtures/changing-web/server.js';
import { openDb, type Db } from '../src/db/db.js';
import { readSettings, type Settings } from '../src/store/settings.js';
import { WatchStore } from '../src/watch/watch-store.js';
import { VirtualClock } from '../src/time/clock.js';
import { groupKey } from '../src/watch/groups.js';
import { relativeChange, runMetrics, weightedScore, type RunMetrics } from '../src/watch/score.js';
import { runWatch, type LearnedRule, type WatchSchedule } from '../src/watch/watcher.js';
import { helpFromHeader, optionsOrExit } from './script-help.js';

helpFromHeader(import.meta.url);

const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(root, 'bin/beebot.js');
const SELF = fileURLToPath(import.meta.url);

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
/** Monday 5 January 2026, 00:00 UTC: the web's start and the history's. */
const START = Date.UTC(2026, 0, 5);
const HISTORY = 30 * D;
const HISTORY_INTERVAL = 10 * M;
const MIX = { static: 0.2, edited: 0.1, list: 0, hub: 0.7 };

interface Config {
  seed: number;
  sites: number;
  pages: number;
  testDays: number;
  minGroupItems: number;
  /** the learned and Poisson schedules run once per threshold */
  thresholds: number[];
  min: number;
  max: number;
}

interface RunSpec {
  name: string;
  schedule: WatchSchedule;
  interval: number;
  threshold: number;
  rule?: LearnedRule;
}

interface RunResult extends RunSpec {
  metrics: RunMetrics;
  /** items published in the test period, and how many of them were found within it */
  published: number;
  caught: number;
  /** checks by the learned model (not its fixed fallback) */
  modelChecks: number;
  seconds: number;
}

const FIXED: [string, number][] = [
  ['10 s', 10 * S], ['20 s', 20 * S], ['30 s', 30 * S], ['1 m', M], ['2 m', 2 * M], ['5 m', 5 * M],
  ['10 m', 10 * M], ['30 m', 30 * M], ['1 h', H], ['2 h', 2 * H],
];

function parseArgs(argv: string[]): Config {
  const c: Config = { seed: 15, sites: 1, pages: 6, testDays: 5, minGroupItems: 1000, thresholds: [0.5, 0.2], min: M, max: 2 * H };
  for (let i = 0; i < argv.length; i += 2) {
    const v = Number(argv[i + 1]);
    if (argv[i] === '--thresholds') {
      c.thresholds = argv[i + 1]!.split(',').map(Number);
      continue;
    }
    switch (argv[i]) {
      case '--seed': c.seed = v; break;
      case '--sites': c.sites = v; break;
      case '--pages': c.pages = v; break;
      case '--test-days': c.testDays = v; break;
      case '--min-group-items': c.minGroupItems = v; break;
      case '--min-minutes': c.min = v * M; break;
      case '--max-minutes': c.max = v * M; break;
      default: throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return c;
}

const makeWeb = (c: Config): ChangingWeb => createChangingWeb({ seed: c.seed, sites: c.sites, pagesPerSite: c.pages, start: START, mix: MIX });

function cli(args: string[], db: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--db', db, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`beebot ${args.join(' ')}: exit ${code}\n${err}`))));
  });
}

function settingsOf(db: Db): Settings {
  return { ...readSettings(db), delay: 0 } as Settings;
}

/** Build the history database: crawl, add the hubs, 30 days at a fixed interval. */
async function history(c: Config, file: string): Promise<{ hubs: number; checks: number; items: number }> {
  const web = makeWeb(c);
  const clock = new VirtualClock(START);
  const server = await startChangingWeb({ web, clock });
  try {
    for (const host of web.hosts) await cli(['seeds', 'add', server.url(host)], file);
    await cli(['crawl', '--delay', '0', '--budget', 'none', '--max-level', '2', ...server.resolveArgs()], file);
    const db = openDb(file);
    try {
      const store = new WatchStore(db);
      const byUrl = db.prepare('SELECT id FROM pages WHERE url = ?').pluck();
      const hubs = web.pages().filter((p) => p.kind === 'hub');
      for (const h of hubs) {
        const url = server.url(h.host, h.path);
        const id = byUrl.get(url) as number | undefined;
        if (id === undefined) throw new Error(`the crawl did not store hub ${url}`);
        store.add(id, groupKey(url), 'manual', START);
      }
      const sum = await runWatch(db, {
        settings: settingsOf(db), schedule: 'fixed', sites: null, interval: HISTORY_INTERVAL, min: c.min, max: c.max, threshold: 1,
        until: START + HISTORY - 1, autoHubs: false, resolve: server.resolveMap(), proxy: null, signal: new AbortController().signal, clock,
      });
      return { hubs: hubs.length, checks: sum.checks, items: sum.items };
    } finally {
      db.close();
    }
  } finally {
    await server.close();
  }
}

/** One schedule over the test period, on its own copy of the history, its own server and clock. */
async function worker(c: Config, spec: RunSpec, file: string): Promise<RunResult> {
  const t0 = performance.now();
  const web = makeWeb(c);
  const from = START + HISTORY;
  const to = from + c.testDays * D;
  const clock = new VirtualClock(from);
  const server = await startChangingWeb({ web, clock });
  const db = openDb(file);
  try {
    await runWatch(db, {
      settings: settingsOf(db), schedule: spec.schedule, rule: spec.rule, sites: null, interval: spec.interval, min: c.min, max: c.max, threshold: spec.threshold,
      models: { minGroupItems: c.minGroupItems }, until: to, autoHubs: false, resolve: new Map(), proxy: `http://127.0.0.1:${server.port}`,
      signal: new AbortController().signal, clock,
    });
    const checks = db.prepare('SELECT at, new_items AS found, schedule FROM watch_checks WHERE at >= ? ORDER BY seq').all(from) as { at: number; found: number; schedule: string }[];
    const rows = db.prepare(`SELECT kind, url, found_at AS found FROM watch_items WHERE found_at >= ?`).all(from) as { kind: string; url: string; found: number }[];
    const truth = new Map<string, number>();
    for (const it of web.items()) {
      truth.set(it.child, it.published);
      if (it.external) truth.set(it.external, it.published);
    }
    const modelUrl = (u: string) => {
      const x = new URL(u);
      return `http://${x.hostname}${x.pathname}${x.search}`;
    };
    const items = rows.flatMap((r) => {
      const p = truth.get(r.kind === 'page' ? modelUrl(r.url) : r.url);
      return p === undefined ? [] : [{ appeared: p, found: r.found, url: r.kind === 'page' ? modelUrl(r.url) : r.url }];
    });
    const hubs = new Set((db.prepare('SELECT p.url FROM watch_hubs h JOIN pages p ON p.id = h.page_id').pluck().all() as string[]).map(modelUrl));
    const inPeriod = web.items().filter((it) => hubs.has(it.hub) && it.published > from && it.published <= to);
    const foundSet = new Set(items.map((i) => i.url));
    const caught = inPeriod.reduce((n, it) => n + (foundSet.has(it.child) ? 1 : 0) + (it.external && foundSet.has(it.external) ? 1 : 0), 0);
    const published = inPeriod.reduce((n, it) => n + 1 + (it.external ? 1 : 0), 0);
    return {
      ...spec, metrics: runMetrics(checks, items), published, caught, modelChecks: checks.filter((x) => x.schedule.startsWith('learned') && x.schedule !== 'learned-fixed').length,
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    db.close();
    await server.close();
  }
}

function spawnWorker(c: Config, spec: RunSpec, file: string, out: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, '--worker', JSON.stringify({ c, spec, file, out })], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`worker ${spec.name}: exit ${code}`));
      resolve(JSON.parse(readFileSync(out, 'utf8')) as RunResult);
    });
  });
}

/** Hit rate and mean delay of the fixed intervals interpolated at `cost` (log-log between the two bracketing runs). */
function atCost(fixed: RunMetrics[], cost: number): { hitRate: number; meanDelay: number } | null {
  const s = [...fixed].filter((f) => f.meanDelay !== null).sort((a, b) => a.cost - b.cost);
  for (let i = 0; i + 1 < s.length; i++) {
    const a = s[i]!;
    const b = s[i + 1]!;
    if (cost < a.cost || cost > b.cost) continue;
    // log-log: a fixed interval's delay and cost are both powers of the interval, so this is exact for them
    const w = (Math.log(cost) - Math.log(a.cost)) / (Math.log(b.cost) - Math.log(a.cost) || 1);
    const geo = (x: number, y: number) => (x > 0 && y > 0 ? Math.exp(Math.log(x) + w * (Math.log(y) - Math.log(x))) : x + w * (y - x));
    return { hitRate: geo(a.hitRate, b.hitRate), meanDelay: geo(a.meanDelay!, b.meanDelay!) };
  }
  return null;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const minutes = (ms: number | null) => (ms === null ? '-' : (ms / M).toFixed(1));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const wi = process.argv.indexOf('--worker');
  if (wi >= 0) {
    const { c, spec, file, out } = JSON.parse(process.argv[wi + 1]!) as { c: Config; spec: RunSpec; file: string; out: string };
    writeFileSync(out, JSON.stringify(await worker(c, spec, file)));
    return;
  }
  const c = optionsOrExit(() => parseArgs(process.argv.slice(2)));
  const t0 = performance.now();
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-watch-'));
  try {
    const base = join(dir, 'history.db');
    const h = await history(c, base);
    const th = (performance.now() - t0) / 1000;
    process.stderr.write(`history: ${h.hubs} hubs, 30 days at a fixed 10 m: ${h.checks} checks, ${h.items} items (${th.toFixed(0)} s)\n`);
    const specs: RunSpec[] = [
      ...c.thresholds.map((threshold): RunSpec => ({ name: `learned, threshold ${threshold}`, schedule: 'learned', interval: HISTORY_INTERVAL, threshold })),
      ...c.thresholds.map((threshold): RunSpec => ({ name: `learned √, threshold ${threshold}`, schedule: 'learned', rule: 'sqrt', interval: HISTORY_INTERVAL, threshold })),
      ...FIXED.map(([name, interval]): RunSpec => ({ name: `fixed ${name}`, schedule: 'fixed', interval, threshold: 1 })),
      ...c.thresholds.map((threshold): RunSpec => ({ name: `poisson, threshold ${threshold}`, schedule: 'poisson', interval: HISTORY_INTERVAL, threshold })),
    ];
    // The slowest (most checks) first, two at a time.
    const order = [...specs].sort((a, b) => (a.schedule === 'fixed' ? a.interval : 3 * M) - (b.schedule === 'fixed' ? b.interval : 3 * M));
    const results = new Map<string, RunResult>();
    const parallel = Math.max(1, Math.min(2, os.availableParallelism()));
    let next = 0;
    await Promise.all(Array.from({ length: parallel }, async () => {
      while (next < order.length) {
        const spec = order[next++]!;
        const file = join(dir, `run-${spec.name.replace(/\W+/g, '-')}.db`);
        copyFileSync(base, file);
        const r = await spawnWorker(c, spec, file, file + '.json');
        process.stderr.write(`  ${spec.name}: ${r.metrics.cost} checks (${r.seconds.toFixed(0)} s)\n`);
        results.set(spec.name, r);
      }
    }));
    const ordered = specs.map((s) => results.get(s.name)!);
    const fixed = ordered.filter((r) => r.schedule === 'fixed');
    const refs = fixed.map((r) => r.metrics);
    const seconds = (performance.now() - t0) / 1000;
    const lines: string[] = [];
    lines.push(`Test period: ${c.testDays} days after 30 days of history (collected at a fixed 10 m); ${h.hubs} hubs on ${c.sites} site(s), seed ${c.seed};`);
    lines.push(`learned and poisson: check when the expected new items since the last check reach the threshold, bounds ${minutes(c.min)}–${minutes(c.max)} min, groups under ${c.minGroupItems} items in 30 days merged into their host.`);
    lines.push('');
    lines.push('| schedule | cost (fetches) | hit rate | mean delay (min) | items caught | score |');
    lines.push('|---|---:|---:|---:|---:|---:|');
    for (const r of ordered) {
      const m = r.metrics;
      lines.push(`| ${r.name} | ${m.cost} | ${pct(m.hitRate)} | ${minutes(m.meanDelay)} | ${pct(r.published === 0 ? 0 : r.caught / r.published)} | ${weightedScore(m, refs).toFixed(2)} |`);
    }
    const med = { cost: median(refs.map((m) => m.cost)), hitRate: median(refs.map((m) => m.hitRate)), delay: median(refs.map((m) => m.meanDelay ?? Infinity)) };
    lines.push('');
    lines.push(`Fixed intervals' median: cost ${med.cost}, hit rate ${pct(med.hitRate)}, mean delay ${minutes(med.delay)} min.`);
    const ten = results.get('fixed 10 m')!.metrics;
    const sign = (x: number | null) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)} %`);
    lines.push('');
    lines.push('| schedule | vs the median: hit rate | cost | delay | vs fixed 10 m: hit rate | cost | delay | vs fixed at equal cost: hit rate | delay | better on all three than |');
    lines.push('|---|---|---|---|---:|---:|---:|---:|---:|---|');
    const better = (b: boolean) => (b ? 'better' : 'not better');
    for (const r of ordered.filter((x) => x.schedule !== 'fixed')) {
      const m = r.metrics;
      const rel = relativeChange(m, ten);
      const eq = atCost(fixed.map((x) => x.metrics), m.cost);
      const vs = (a: number | null, b: number | null) => (a === null || b === null ? '-' : sign((a - b) / b));
      lines.push(
        `| ${r.name} | ${better(m.hitRate > med.hitRate)} | ${better(m.cost < med.cost)} | ${better(m.meanDelay !== null && m.meanDelay < med.delay)} | ` +
          `${sign(rel.hitRate)} | ${sign(rel.cost)} | ${sign(rel.meanDelay)} | ${eq ? vs(m.hitRate, eq.hitRate) : '-'} | ${eq ? vs(m.meanDelay, eq.meanDelay) : '-'} | ` +
          `${fixed.filter((f) => m.cost < f.metrics.cost && m.hitRate > f.metrics.hitRate && m.meanDelay !== null && f.metrics.meanDelay !== null && m.meanDelay < f.metrics.meanDelay).map((f) => f.name).join(', ') || '-'} |`,
      );
    }
    lines.push('');
    lines.push('"At equal cost": the fixed intervals\' hit rate and delay interpolated (log-log) at the schedule\'s cost.');
    lines.push(`Run time ${seconds.toFixed(0)} s (history ${th.toFixed(0)} s) on ${parallel} worker(s).`);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
