import { ORDERS } from '../schedule/links/priority.js';
import { barelyCrawledOf } from './status-command.js';
import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { holdRunLock } from './crawl-lock.js';
import { holdPgRunLock } from '../db/run-lock.js';
import { interruptible } from './interruptible.js';
import { policyFromSettings } from './policy-from-settings.js';
import { policyNames } from '../schedule/sites/registry.js';
import { crawl } from '../crawl/crawler.js';
import type { CrawlSummary } from '../crawl/run-report.js';
import { refresh } from '../refresh/full-pass.js';
import { BANDIT_DEFAULT, defaults, parseSetting, RESOLVE_ENTRY, readSettings, writeSetting, type Settings } from '../store/settings.js';
import { siteCount } from '../store/sites.js';
import { htmlPageCount, pullCount, siteCoverage } from '../store/status.js';
import { cannotRead } from './read-error.js';
import { dbPath, lockWaitLine, sayLockWait, withDb } from './context.js';
import { onLockWait } from '../db/write-lock.js';
import { progressReporter, waitLines } from './progress.js';
import { counted, grouped, htmlOfFetched } from '../markup/counted.js';
import { waitingPagesLine } from '../net/waiting.js';
import { rewardModes, type RewardMode } from '../schedule/sites/reward.js';
import { endIfNothingReached } from './nothing-reached.js';
import { pagesLeftLines } from './pages-left.js';

interface CrawlFlags {
  budget?: string;
  policy?: string;
  reward?: string;
  order?: string;
  focus?: string;
  focusFile?: string;
  focusThreshold?: string;
  quantum?: string;
  step?: string;
  warmup?: string;
  explore?: string;
  window?: string;
  maxLevel?: string;
  concurrency?: string;
  delay?: string;
  proxy?: string;
  resolve: string[];
  userAgent?: string;
  allowReadd?: boolean;
  checkCertificate?: boolean;
  refresh?: boolean;
}

export function crawlCommand(): Command {
  return new Command('crawl')
    .description('crawl the sites, the pages predicted to bring the most new external links first (--order bfs: breadth-first), until the budget is spent or every site is exhausted; Ctrl-C stops, a rerun resumes')
    .option('--budget <pages>', "total pages for this database, saved ('none' = until every site is exhausted)")
    .addOption(new Option('--policy <name>', `site scheduler, saved (default ${defaults.policy} with --order value, ${BANDIT_DEFAULT} with any other order)`).choices([...policyNames]))
    .addOption(new Option('--order <order>', `inside a site: bfs (breadth-first) or best-first (the page of highest predicted yield first, learned from the crawl); value (each link's predicted new external URLs, for --policy pages); plain, shark-search and otie are the focused-crawling article's baselines, for comparison; saved (default ${defaults.order})`).choices([...ORDERS]))
    .option('--focus <terms>', "topic-focused crawl: the topic's words (a TF-IDF vector); pages are scored by their similarity to it, saved ('none' ends it)")
    .option('--focus-file <file>', 'topic-focused crawl: the topic from a text or HTML file (example pages), saved')
    .option('--focus-threshold <x>', `a page is relevant from this cosine similarity to the topic on, saved (default ${defaults['focus-threshold']})`)
    .addOption(new Option('--reward <mode>', `what a fetched page earns, saved (default ${defaults.reward}): urls = external URLs new to the site, hosts = outside hosts new to the site, pairs = new (page, URL) pairs`).choices([...rewardModes]))
    .option('--quantum <pages>', `round-robin, auto: pages per site per turn, saved (default ${defaults.quantum})`)
    .option('--step <pages>', `gittins, auto: batch size n, saved (default ${defaults.step})`)
    .option('--warmup <pages>', `ucb1, kl-ucb, ucb1-tuned, sw-ucb, rr-ucb, auto: pages per site first, saved (default ${defaults.warmup})`)
    .option('--explore <pages>', "trivial: phase-1 pages per site, saved ('none' = round(N/K))")
    .option('--window <pages>', `sw-ucb, rr-ucb: a site's own latest pages its mean covers, saved (default ${defaults.window})`)
    .option('--max-level <n>', 'deepest level fetched (start page = 0), saved')
    .option('--concurrency <n>', 'pages fetched at once (one per site at a time), saved')
    .option('--delay <ms>', 'minimum milliseconds between two requests to one host, saved')
    .option('--proxy <url>', "send every request through this HTTP proxy, saved ('none' = no proxy)")
    .option('--resolve <host:port:addr>', 'connect to addr for host, like curl (repeatable; the list given is saved)', (v: string, acc: string[]) => [...acc, v], [])
    .option('--user-agent <s>', 'User-Agent header, saved')
    .option('--no-check-certificate', "accept any TLS certificate (self-signed, expired, for another host), as curl -k and wget do; saved ('config set check-certificate yes' checks again)")
    .option('--allow-readd', "store again links deleted with 'beebot links delete'")
    .option('--refresh', 're-check every read page once with conditional requests (ETag, Last-Modified): a 304 or the same text and links keeps a page, a changed page\'s links are re-read (missing ones marked gone), 404/410 marks it gone; --budget then caps this run\'s requests (not saved); Ctrl-C stops, a rerun resumes. To choose which pages under a time budget: beebot refresh')
    .action(async (flags: CrawlFlags, cmd: Command) => {
      const given = parseResolve(flags.resolve);
      if (flags.refresh) return refreshAction(flags, cmd, given);
      checkProxy(flags.proxy);
      // Everything that makes the crawl work is kept with it: a plain rerun resumes the same crawl.
      const saved = {
        budget: flags.budget, policy: flags.policy, reward: flags.reward, order: flags.order, quantum: flags.quantum, step: flags.step,
        warmup: flags.warmup, explore: flags.explore, window: flags.window,
        focus: flags.focusFile !== undefined ? focusFromFile(flags.focusFile) : flags.focus, 'focus-threshold': flags.focusThreshold,
        'max-level': flags.maxLevel, concurrency: flags.concurrency, delay: flags.delay, 'user-agent': flags.userAgent,
        proxy: flags.proxy, resolve: flags.resolve.length > 0 ? flags.resolve.join(',') : undefined,
        'check-certificate': cmd.getOptionValueSource('checkCertificate') === 'cli' ? 'no' : undefined,
      };
      if (flags.focus !== undefined && flags.focusFile !== undefined) throw new UsageError('give --focus or --focus-file, not both');
      const check = (o: Record<string, string | undefined>) =>
        Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => [k, parseSetting(k as keyof Settings, v!)] as const);
      const savedValues = check(saved);

      // SQLite: one crawl per database at a time, a second one would fetch the same pages.
      // PostgreSQL: every crawl started on the database is a worker of the same crawl (store/shared-crawl.ts).
      const release = holdRunLock(dbPath(cmd), (pid) => `another crawl (pid ${pid}) is running on ${dbPath(cmd)}`);
      try {
        await withDb(cmd, async (db) => {
          const done = pullCount(db);
          const given = savedValues.find(([k]) => k === 'budget')?.[1] as number | null | undefined;
          if (given !== undefined && given !== null && given < done) throw new UsageError(budgetBelowDone(done, given));
          for (const [k, v] of savedValues) writeSetting(db, k as keyof Settings, v);
          const settings = readSettings(db);
          if (settings.budget !== null && done >= settings.budget) return void process.stdout.write(budgetSpentLine(done, settings.budget) + '\n');
          const resolve = parseResolve(settings.resolve);
          if (siteCount(db) === 0) {
            throw new UsageError("no sites to crawl: add some with 'beebot seeds add <url>'");
          }
          const progress = progressReporter({ budget: settings.budget });
          onLockWait((file, at) => progress.onNotice(lockWaitLine(file, at)));
          let summary: CrawlSummary | undefined;
          try {
            summary = await interruptible((signal) =>
              crawl(db, { settings, allowReadd: flags.allowReadd ?? false, policy: policyFromSettings(settings), resolve, proxy: settings.proxy, signal, onPull: progress.onPull, onStart: progress.onStart, onWait: progress.onWait }),
            );
          } finally {
            progress.finish(summary !== undefined && summary.reason !== 'interrupted');
            onLockWait(sayLockWait);
          }
          process.stdout.write(formatSummary(summary, htmlPageCount(db)));
          for (const l of barelyCrawledOf(db, siteCoverage(db), BARELY_SHOWN)) process.stdout.write(`${l}\n`);
          if (summary.reason === 'interrupted') process.exitCode = 130;
          else {
            const reach = { reached: summary.reached, attempts: summary.failedForNow, cause: summary.cause, lastFailure: summary.lastFailure };
            const said = endIfNothingReached(reach, summary.reason === 'waiting' ? summary.seconds * 1000 : null, 'beebot crawl', 'nothing marked failed, the frontier is kept');
            if (!said && summary.reached === 0 && summary.untrusted > 0) {
              process.stderr.write(`beebot: nothing could be fetched in this run: every host asked has a TLS certificate this machine does not accept (last: ${summary.lastUntrusted}); trust its CA (NODE_EXTRA_CA_CERTS=ca.pem) or crawl with --no-check-certificate\n`);
              process.exitCode = 1;
            }
          }
        });
      } finally {
        release();
      }
    });
}

// A crawl's budget counts every page of the database, not this run's: both lines name a budget
// that works, counting the one given as the pages wanted more.

/** Why a --budget below the pages already fetched is refused. */
export function budgetBelowDone(done: number, budget: number): string {
  return `this crawl already fetched ${counted(done, 'page')} and --budget counts them all: give more than ${done}, e.g. --budget ${done + budget} to fetch ${budget} more (nothing saved)`;
}

/** What a crawl whose budget the pages already fetched reach says instead of crawling. */
export function budgetSpentLine(done: number, budget: number): string {
  return `budget reached: this crawl already fetched ${counted(done, 'page')}, its budget is ${counted(budget, 'page')}: nothing to do; --budget ${done + budget} fetches ${budget} more, --budget none goes on until every site is exhausted`;
}

/** The crawl options a refresh has no use for: most steer which new pages a crawl fetches. */
const NOT_WITH_REFRESH: (keyof CrawlFlags)[] = [
  'policy', 'reward', 'order', 'focus', 'focusFile', 'focusThreshold', 'quantum', 'step', 'warmup', 'explore', 'window', 'maxLevel', 'allowReadd',
  'concurrency', // a refresh checks one page at a time
];

/** `crawl --refresh` (src/refresh/full-pass.ts): its budget is this run's only, and saves nothing. */
async function refreshAction(flags: CrawlFlags, cmd: Command, resolve: Map<string, string>): Promise<void> {
  const extra = NOT_WITH_REFRESH.find((k) => flags[k] !== undefined);
  if (extra) throw new UsageError(`--refresh does not take --${extra.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`);
  checkProxy(flags.proxy);
  const budget = flags.budget === undefined ? null : (parseSetting('budget', flags.budget) as number | null);
  const run = Object.entries({ delay: flags.delay, 'user-agent': flags.userAgent })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, parseSetting(k as keyof Settings, v!)] as const);
  const release = holdRunLock(dbPath(cmd), (pid) => `another crawl (pid ${pid}) is running on ${dbPath(cmd)}`, { mustExist: true });
  try {
    await withDb(cmd, async (db) => {
      holdPgRunLock(db, `another refresh is running on ${db.name}`);
      const settings = { ...readSettings(db), ...Object.fromEntries(run) } as Settings;
      // The crawl's own proxy and host mappings unless given for this refresh.
      const proxy = flags.proxy === undefined ? settings.proxy : parseSetting('proxy', flags.proxy);
      const mapped = flags.resolve.length > 0 ? resolve : parseResolve(settings.resolve);
      const waits = waitLines();
      const r = await interruptible((signal) => refresh(db, { settings, budget, resolve: mapped, proxy, signal, onCheck: () => waits.over(), onWait: waits.onWait }));
      const c = r.counts;
      const why = {
        done: 'every fetched page re-checked', budget: 'budget reached (run again to go on)', interrupted: 'interrupted (run again to resume)',
        waiting: `only pages that failed for now were left, waited for as long as this run may (last: ${r.failures.cause ?? 'failed for now'})`,
      }[r.reason];
      process.stdout.write([
        `refresh ${r.gen}${r.resumed ? ' (resumed)' : ''} stopped: ${why}`,
        `this run: ${c.keep - r.same} unchanged (304), ${r.same} re-read with the same text and links, ${c.replace} changed, ${c.gone} gone, ${c.retry} failed (kept as they were), ${c.skipped} skipped (robots.txt); ${r.seconds.toFixed(1)} s`,
        `left to re-check: ${r.left}; new pages a changed page links to are queued for the next 'beebot crawl'`,
        '',
      ].join('\n'));
      if (r.reason === 'interrupted') process.exitCode = 130;
      else endIfNothingReached(r.failures, r.reason === 'waiting' ? r.seconds * 1000 : null, 'beebot crawl --refresh', 'nothing recorded, the pages stay to be checked');
    }, { mustExist: true });
  } finally {
    release();
  }
}

function checkProxy(proxy: string | undefined): void {
  if (proxy !== undefined && proxy !== 'none' && !/^https?:\/\/[^/]+/i.test(proxy)) throw new UsageError(`--proxy must be an http(s) URL or 'none', got '${proxy}'`);
}

/** The text of a topic file: an HTML page's markup, scripts and styles are left out. */
function focusFromFile(file: string): string {
  let s: string;
  try {
    s = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--focus-file: ${cannotRead(file, err)}`);
  }
  const text = s.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 64 * 1024);
  if (text === '') throw new UsageError(`--focus-file: ${file} has no text`);
  return text;
}

/** curl-style host:port:addr (the port is accepted for curl compatibility; every port of host maps). */
export function parseResolve(values: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const v of values) {
    const m = RESOLVE_ENTRY.exec(v.trim());
    if (!m) throw new UsageError(`--resolve wants host:port:address, got '${v}'`);
    map.set(m[1]!.toLowerCase(), m[3]!.replace(/^\[|\]$/g, ''));
  }
  return map;
}

/** Barely crawled sites the summary names a line each at most: more are counted in one line. */
const BARELY_SHOWN = 10;

/** What the scheduler counts, in the summary's words (--reward). */
const COUNTED: Record<RewardMode, string> = { urls: 'new external URLs', hosts: 'new outside hosts', pairs: 'new (page, external URL) pairs' };

/** `html`: the HTML pages among the pages fetched in the whole database. */
export function formatSummary(s: CrawlSummary, html: number): string {
  // The states' words are status's: a site at max-pages-per-site is 'capped', not 'exhausted'.
  // 'exhausted' only of a site with nothing left queued: pages that wait, or a cap, are said so
  // pages beyond max-level are counted below, but a site with nothing else left is exhausted
  const queued = s.left.reduce((n, x) => n + x.queued - x.beyondLevel, 0);
  const left = queued > 0
    ? `no site has a page to fetch in this run: ${s.sites.exhausted} exhausted${s.sites.waiting > 0 ? `, ${s.sites.waiting} waiting` : ''}${s.sites.capped > 0 ? `, ${s.sites.capped} capped` : ''}; the ${counted(queued, 'page')} left are accounted for below`
    : 'every site exhausted';
  const why = {
    budget: 'budget reached', exhausted: left, interrupted: 'interrupted (run beebot crawl again to resume)',
    waiting: `only pages that failed for now were left, waited for as long as this run may (last: ${s.cause ?? 'failed for now'})`,
  }[s.reason];
  const rate = s.seconds > 0 ? (s.pulls / s.seconds).toFixed(1) : '0';
  const run = s.pulls === 0 ? `this run fetched nothing (${s.seconds.toFixed(1)} s)` : `this run: ${grouped(s.pulls)} pages, ${s.seconds.toFixed(1)} s, ${rate} pages/s`;
  return [
    `stopped: ${why}`,
    ...s.stopped.map((x) => `  site ${x.site}: ${x.why}`),
    `${run}; counting ${COUNTED[s.mode]}`,
    `  new to their site: ${grouped(s.rewards.urls)} external URLs, ${grouped(s.rewards.hosts)} outside hosts; new (page, external URL) pairs: ${grouped(s.rewards.pairs)}`,
    `  new to the database: ${grouped(s.newUrls)} external URLs, ${grouped(s.newHosts)} outside hosts`,
    `database: ${htmlOfFetched(html, s.totalPulls)}${s.budget !== null ? `, budget ${grouped(s.budget)}` : ''}; ${grouped(s.distinctUrls)} distinct external URLs, ${grouped(s.distinctHosts)} outside hosts`,
    `shortest time the delays between requests allow: ${s.lowerBoundSeconds.toFixed(1)} s${s.busiestHost ? ` (busiest host ${s.busiestHost.host}: ${counted(s.busiestHost.pages, 'page')}, ${grouped(s.busiestHost.delayMs)} ms apart)` : ''}`,
    ...(s.failedForNow > 0 || s.waiting > 0 ? [`failed for now: ${counted(s.failedForNow, 'attempt')} this run${s.cause ? ` (last: ${s.cause})` : ''}, kept in the frontier`] : []),
    ...(s.untrusted > 0 ? [`not fetched: ${counted(s.untrusted, 'page')} on hosts whose TLS certificate is not accepted (last: ${s.lastUntrusted}); trust their CA (NODE_EXTRA_CA_CERTS=ca.pem) or crawl with --no-check-certificate`] : []),
    ...pagesLeftLines(s, Date.now()),
    ...(s.waiting > 0 ? [waitingPagesLine(s.waiting, s.waitingSites, s.earliestRetry, Date.now())] : []),
    ...sitemapLines(s.sitemaps),
    '',
  ].join('\n');
}

/** The sitemaps this run read: one total line, then each file that could not be read, by site (a few a site: status --json has them all). */
function sitemapLines(reads: CrawlSummary['sitemaps']): string[] {
  if (reads.length === 0) return [];
  const sum = (k: 'files' | 'pages' | 'queued') => reads.reduce((a, r) => a + r[k], 0);
  const troubled = reads.filter((r) => r.problems.length > 0);
  const lines = [
    `sitemaps read for ${reads.length} site(s): ${sum('files')} files, ${sum('pages')} pages of the sites, ${sum('queued')} new to the frontier` +
      (troubled.length ? `; ${troubled.length} site(s) with files that could not be read:` : ''),
  ];
  for (const r of troubled) {
    for (const p of r.problems.slice(0, SITEMAP_PROBLEMS_SHOWN)) lines.push(`  site ${r.site}: ${p}`);
    if (r.problems.length > SITEMAP_PROBLEMS_SHOWN) lines.push(`  site ${r.site}: and ${r.problems.length - SITEMAP_PROBLEMS_SHOWN} more (beebot status --json)`);
  }
  return lines;
}
const SITEMAP_PROBLEMS_SHOWN = 3;
