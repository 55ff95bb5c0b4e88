// `npm run bench:refresh [-- --seed 1 --sites 4 --pages 120 --days 14 --share 0.04 --deltas 0,0.25,… --out FILE|none]`
//: how fresh S.C.E.N.T. keeps an index, at several ΔS, against uniform
// revisiting, revisiting by estimated change rate, and Cho & Garcia-Molina's optimal schedule fed
// with the true rates. One changing web (fixtures/changing-web) on a virtual clock, served over
// loopback; one initial crawl; then each configuration runs `beebot refresh`'s loop
// (runIterations) from a copy of that database, an iteration an hour. Q / Q_max is measured from
// ground truth every 10 virtual minutes (bench/refresh-truth.ts). Figures, not assertions: the
// table to stdout, progress to stderr, everything also to bench/refresh-results.json.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChangingWeb, type ChangingWeb } from '../fixtures/changing-web/model.js';
import { startChangingWeb, type ChangingWebServer } from '../fixtures/changing-web/server.js';
import { linkCatch, type LinkCatch } from '../bench/refresh-links.js';
import { IndexTruth } from '../bench/refresh-truth.js';
import { SamplingClock, SwitchClock } from '../bench/sampling-clock.js';
import { policyFromSettings } from '../src/cli/policy-from-settings.js';
import { crawl } from '../src/crawl/crawler.js';
import { checkMs, type CheckCost } from '../src/refresh/check-cost.js';
import { contentValue } from '../src/refresh/content-value.js';
import { runIterations } from '../src/refresh/iterations.js';
import { optimalFrequencies, type ScheduleName } from '../src/refresh/schedules.js';
import { openDb, type Db } from '../src/db/db.js';
import { readSettings, writeSetting } from '../src/store/settings.js';
import { insertSites } from '../src/store/sites.js';
import { VirtualClock } from '../src/time/clock.js';
import { helpFromHeader, optionsOrExit } from './script-help.js';

helpFromHeader(import.meta.url);

const root = fileURLToPath(new URL('../../', import.meta.url));
const log = (s: string) => process.stderr.write(`${s}\n`);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Monday 5 January 2026, 00:00 UTC: the hubs' weekly rhythm starts on a Monday. */
const START = Date.UTC(2026, 0, 5);
const SAMPLE_MS = 10 * MINUTE;
/** Fixed, so results do not depend on loopback speed: 100 ms a request + 1 µs a byte (≈ 1 MB/s). */
const COST: CheckCost = { a: 0.001, b: 100, n: 0 };

interface Options {
  seed: number;
  sites: number;
  pages: number;
  days: number;
  /** the share of the index's check time an iteration may spend */
  share: number;
  deltas: number[];
  only: string[] | null;
  out: string | null;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { seed: 1, sites: 4, pages: 120, days: 14, share: 0.04, deltas: [0, 0.25, 0.5, 1, 2, 4, 8, 1e6], only: null, out: join(root, 'bench', 'refresh-results.json') };
  for (let i = 0; i < argv.length; i += 2) {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${argv[i]} needs a value`);
    switch (argv[i]) {
      case '--seed': o.seed = Number(v); break;
      case '--sites': o.sites = Number(v); break;
      case '--pages': o.pages = Number(v); break;
      case '--days': o.days = Number(v); break;
      case '--share': o.share = Number(v); break;
      case '--deltas': o.deltas = v.split(',').map(Number); break;
      case '--only': o.only = v.split(','); break;
      case '--out': o.out = v === 'none' ? null : v; break;
      default: throw new Error(`unknown option ${argv[i]}`);
    }
  }
  if (![o.seed, o.sites, o.pages, o.days, o.share].every((x) => Number.isFinite(x) && x > 0) || o.deltas.some((d) => !(d >= 0))) throw new Error('bad option value');
  if (o.days > 42) throw new Error('--days: the changing web reaches 6 weeks');
  return o;
}

interface Config {
  name: string;
  schedule: ScheduleName | 'optimal';
  delta: number;
}

interface Result extends Config, LinkCatch {
  /** mean of Q / Q_max over the samples: all pages, and the tree pages only (no feed item pages) */
  quality: number;
  treeQuality: number;
  samples: number;
  checks: number;
  /** of the checks, first reads of pages a refresh found */
  firstReads: number;
  /** of the checks, re-checks of pages a refresh found (feed items here: they never change) */
  foundRechecks: number;
  newPerCheck: number;
  seconds: number;
}

/** The initial crawl: everything live at the start, into `file`, in the web's virtual time (found_at, fetched_at: as the refresh's clock sees them). */
async function initialCrawl(file: string, web: ChangingWeb, server: ChangingWebServer): Promise<void> {
  const db = openDb(file);
  try {
    writeSetting(db, 'delay', 0);
    writeSetting(db, 'max-level', 10);
    writeSetting(db, 'budget', null);
    insertSites(db, web.hosts.map((h) => ({ url: new URL(server.url(h, '/')) })), readSettings(db).normalize);
    const settings = readSettings(db);
    const clock = new VirtualClock(START);
    const r = await crawl(db, { settings, policy: policyFromSettings(settings), resolve: server.resolveMap(), proxy: null, signal: new AbortController().signal, clock });
    log(`initial crawl: ${r.pulls} pages, ${r.distinctUrls} external URLs (${r.reason})`);
  } finally {
    db.close(); // merges the WAL: the file alone is the database to copy
  }
}

/** Cho & Garcia-Molina's frequencies from the web's true rates, for the pages the database holds. */
function oracle(db: Db, web: ChangingWeb, server: ChangingWebServer, share: number) {
  const rates = web.rates();
  const urlOf = new Map((db.prepare('SELECT id, url FROM pages').all() as { id: number; url: string }[]).map((r) => [r.id, server.modelUrl(r.url)]));
  return (cands: { id: number; bytes: number | null; textSize: number | null }[], cost: CheckCost) => {
    const read = cands.filter((c) => c.bytes !== null);
    const mean = read.reduce((s, c) => s + c.bytes!, 0) / Math.max(1, read.length);
    for (const c of cands) if (!urlOf.has(c.id)) urlOf.set(c.id, server.modelUrl((db.prepare('SELECT url FROM pages WHERE id = ?').pluck().get(c.id) as string)));
    const pages = cands.map((c) => ({
      id: c.id,
      rate: rates.get(urlOf.get(c.id)!) ?? 0, // item pages never change
      weight: contentValue(c.textSize ?? 0, 'log'),
      costMs: checkMs(cost, c.bytes ?? mean),
    }));
    return optimalFrequencies(pages, share);
  };
}

async function runConfig(c: Config, base: string, dir: string, o: Options, web: ChangingWeb, server: ChangingWebServer, serverClock: SwitchClock, truth0: IndexTruth, budgetMs: number): Promise<Result> {
  const t0 = performance.now();
  const file = join(dir, `${c.name.replace(/[^\w.-]+/g, '_')}.db`);
  copyFileSync(base, file);
  const db = openDb(file);
  const iterations = o.days * 24;
  const end = START + iterations * HOUR;
  const truth = truth0.fork(server.log.length);
  let sum = 0;
  let sumTree = 0;
  let samples = 0;
  const clock = new SamplingClock(START, SAMPLE_MS, (t) => {
    const { all, tree } = truth.quality(t);
    sum += all.q / all.qMax;
    sumTree += tree.q / tree.qMax;
    samples++;
  });
  serverClock.current = clock;
  let checks = 0;
  let lastCheck = START;
  try {
    await runIterations(db, {
      settings: readSettings(db), schedule: c.schedule === 'optimal' ? 'uniform' : c.schedule, sites: null, budgetMs, everyMs: HOUR, iterations, until: null,
      delta: c.delta, value: 'log', cost: COST, resolve: server.resolveMap(), proxy: null, signal: new AbortController().signal, clock,
      frequencies: c.schedule === 'optimal' ? oracle(db, web, server, budgetMs / HOUR) : undefined,
      onIteration: (it) => {
        checks += it.checked;
        lastCheck = clock.now();
        if (it.gen % (24 * 7) === 0) log(`  ${c.name}: day ${it.gen / 24}, ${checks} checks`);
      },
    });
    clock.until(end);
    const links = linkCatch(db, web, START, lastCheck, end);
    // Checks that read a page for the first time (found by a refresh): every schedule takes those first.
    const found = `NOT EXISTS (SELECT 1 FROM fetches f WHERE f.page_id = r.page_id)`;
    const firstReads = db.prepare(`SELECT count(DISTINCT r.page_id) FROM refreshes r WHERE ${found}`).pluck().get() as number;
    // ... and the checks after that first read: on this web those pages are feed items, which never change.
    const foundRechecks = (db.prepare(`SELECT count(*) FROM refreshes r WHERE ${found}`).pluck().get() as number) - firstReads;
    return { ...c, ...links, quality: sum / samples, treeQuality: sumTree / samples, samples, firstReads, foundRechecks, checks, newPerCheck: links.newUrls / Math.max(1, checks), seconds: (performance.now() - t0) / 1000 };
  } finally {
    db.close();
    rmSync(file, { force: true });
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
  }
}

const pct = (x: number, d = 1) => (100 * x).toFixed(d);

function table(results: Result[]): string {
  const rows = results.map((r) => `| ${r.name} | ${pct(r.quality)} | ${pct(r.treeQuality)} | ${r.checks} | ${r.firstReads} | ${r.foundRechecks} | ${r.newPerCheck.toFixed(3)} | ${r.meanDelayH === null ? '–' : r.meanDelayH.toFixed(1)} | ${r.items ? pct(r.caught / r.items, 0) : '–'} |`);
  return ['| configuration | Q/Q_max % | tree pages only | checks | first reads | re-checks of those | new ext. links / check | mean delay (h) | caught % |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

async function main(): Promise<void> {
  const o = optionsOrExit(() => parseArgs(process.argv.slice(2)));
  const t0 = performance.now();
  const web = createChangingWeb({ seed: o.seed, sites: o.sites, pagesPerSite: o.pages, start: START });
  const serverClock = new SwitchClock(new VirtualClock(START));
  const server = await startChangingWeb({ web, clock: serverClock });
  const dir = mkdtempSync(join(os.tmpdir(), 'beebot-bench-refresh-'));
  try {
    const base = join(dir, 'initial.db');
    await initialCrawl(base, web, server);
    const truth0 = new IndexTruth(web, server.log, START + o.days * DAY);
    truth0.follow();
    // The budget: `share` of the time checking every page the index holds would take, by the cost model.
    const db = openDb(base, { readonly: true });
    const bytes = db.prepare(`SELECT bytes FROM pages WHERE bytes IS NOT NULL`).pluck().all() as number[];
    db.close();
    const fullMs = bytes.reduce((s, b) => s + checkMs(COST, b), 0);
    const budgetMs = Math.round(o.share * fullMs);
    log(`index: ${bytes.length} pages, a full pass ${(fullMs / 1000).toFixed(1)} s by the model; budget ${budgetMs} ms an hour (${pct(o.share)} %)`);
    const configs: Config[] = [
      ...o.deltas.map((delta) => ({ name: `scent ΔS=${delta}`, schedule: 'scent' as const, delta })),
      { name: 'uniform', schedule: 'uniform', delta: 0 },
      { name: 'change-rate', schedule: 'change-rate', delta: 0 },
      { name: 'optimal (known rates)', schedule: 'optimal', delta: 0 },
    ];
    const results: Result[] = [];
    for (const c of configs.filter((x) => o.only === null || o.only.some((n) => x.name.includes(n)))) {
      log(`${c.name}…`);
      const r = await runConfig(c, base, dir, o, web, server, serverClock, truth0, budgetMs);
      log(`  ${c.name}: Q/Q_max ${pct(r.quality)} %, ${r.checks} checks, ${r.seconds.toFixed(0)} s`);
      results.push(r);
    }
    const scent = results.filter((r) => r.schedule === 'scent');
    const best = scent.reduce<Result | undefined>((b, r) => (b === undefined || r.quality > b.quality ? r : b), undefined);
    const command = `npm run bench:refresh -- ${process.argv.slice(2).join(' ')}`.trim();
    const seconds = (performance.now() - t0) / 1000;
    const out = [
      `Changing web seed ${o.seed}: ${o.sites} sites × ${o.pages} pages, ${o.days} days from ${new Date(START).toISOString().slice(0, 10)}, an iteration an hour;`,
      `check time ${COST.a} ms/byte × size + ${COST.b} ms; budget ${budgetMs} ms an iteration (${pct(o.share)} % of a full pass); Q/Q_max sampled every ${SAMPLE_MS / MINUTE} min.`,
      '',
      table(results),
      '',
      best ? `S.C.E.N.T. at its best ΔS (${best.delta}): ${pct(best.quality)} % of Q_max.` : '',
      `Command: ${command} (${seconds.toFixed(0)} s)`,
    ].join('\n');
    process.stdout.write(out + '\n');
    if (o.out) {
      writeFileSync(o.out, JSON.stringify({ options: { ...o, out: undefined }, start: new Date(START).toISOString(), cost: COST, budgetMs, indexPages: bytes.length, seconds, results }, null, 2) + '\n');
      log(`results written to ${o.out}`);
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
