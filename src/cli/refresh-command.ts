import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { parseLimit, siteOption } from './filter-options.js';
import { holdRunLock } from './crawl-lock.js';
import { holdPgRunLock } from '../db/run-lock.js';
import { dbPath, lockWaitLine, sayLockWait, withDb } from './context.js';
import { onLockWait } from '../db/write-lock.js';
import { interruptible } from './interruptible.js';
import { refreshProgress } from './refresh-progress.js';
import { endIfNothingReached } from './nothing-reached.js';
import { waitingPagesLine } from '../net/waiting.js';
import { parseResolve } from './crawl-command.js';
import { valueFunctions, type ValueFunction } from '../refresh/content-value.js';
import { runIterations, type IterationSummary } from '../refresh/iterations.js';
import { scheduleNames, type ScheduleName } from '../refresh/schedules.js';
import { parseSetting, readSettings, type Settings } from '../store/settings.js';
import { formatDuration, parseDuration } from '../time/duration.js';
import { parseSince } from '../store/link-filter.js';

interface RefreshFlags {
  site: string[];
  schedule: ScheduleName;
  delta: string;
  value: ValueFunction;
  budgetTime: string;
  every?: string;
  iterations?: string;
  until?: string;
  cost?: string;
  delay?: string;
  userAgent?: string;
  resolve: string[];
  proxy?: string;
  json?: boolean;
}

/** The ΔS `beebot refresh` gives every page after an iteration unless told otherwise: between hunting new links (0) and keeping known pages fresh (large); see bench:refresh in the README. */
export const DEFAULT_DELTA = 1;

export function refreshCommand(): Command {
  return new Command('refresh')
    .description(
      'keep a crawl fresh (S.C.E.N.T.): each iteration re-checks the read pages with the strongest scent, with conditional requests, ' +
        'until its time budget is spent; a changed page\'s links are re-read (new ones added, missing ones marked gone), a 404/410 marks it gone, ' +
        'pages a changed page newly links to are read too. Ctrl-C stops; a rerun resumes the stopped iteration',
    )
    .option('--site <ref>', 'only this site (id, URL, host or short name; repeatable); default all', (v: string, acc: string[]) => [...acc, v], [])
    .addOption(new Option('--schedule <name>', 'which pages an iteration checks: scent (S.C.E.N.T.), uniform (round robin), change-rate (in proportion to the estimated rate of change)').choices(scheduleNames).default('scent'))
    .option('--delta <x>', 'scent every page gains after each iteration: 0 stops checking pages found unchanged a few times; large values approach uniform revisiting', String(DEFAULT_DELTA))
    .addOption(new Option('--value <f>', 'value of content of a given size: log (the article), linear, binary (changed or not)').choices(valueFunctions).default('log'))
    .option('--budget-time <duration>', 'check time one iteration may spend, by the model A·size + B (e.g. 5m, 1h)', '10m')
    .option('--every <duration>', 'start an iteration this long after the start of the one before (without it iterations run back to back)')
    .option('--iterations <n>', 'iterations to run (default 1; with --every or --until: until stopped or --until)')
    .option('--until <time>', 'start no iteration after this: an ISO time, or a duration from now (8h)')
    .option('--cost <a,b>', 'the check-time model A,B (ms per byte, ms) instead of the fit on the fetch log')
    .option('--delay <ms>', 'minimum delay between requests to one host, this run')
    .option('--user-agent <ua>', 'User-Agent header, this run')
    .option('--resolve <host:port:addr>', 'connect to addr for host, like curl (repeatable)', (v: string, acc: string[]) => [...acc, v], [])
    .option('--proxy <url>', 'send every request through this HTTP proxy')
    .option('--json', 'one JSON object per iteration')
    .action(async (flags: RefreshFlags, cmd: Command) => {
      const resolve = parseResolve(flags.resolve);
      const delta = Number(flags.delta);
      if (flags.delta.trim() === '' || !Number.isFinite(delta) || delta < 0) throw new UsageError(`--delta must be a number >= 0, got '${flags.delta}'`);
      const budgetMs = parseDuration(flags.budgetTime, '--budget-time');
      if (budgetMs <= 0) throw new UsageError('--budget-time must be more than 0');
      const everyMs = flags.every === undefined ? null : parseDuration(flags.every, '--every');
      const until = flags.until === undefined ? null : parseUntil(flags.until);
      const iterations = flags.iterations !== undefined ? parseLimit(flags.iterations) : everyMs !== null || until !== null ? null : 1;
      const cost = flags.cost === undefined ? null : parseCost(flags.cost);
      if (flags.proxy !== undefined && !/^https?:\/\/[^/]+/i.test(flags.proxy)) throw new UsageError(`--proxy must be an http(s) URL, got '${flags.proxy}'`);
      const run = Object.entries({ delay: flags.delay, 'user-agent': flags.userAgent })
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, parseSetting(k as keyof Settings, v!)] as const);
      const release = holdRunLock(dbPath(cmd), (pid) => `a crawl or refresh (pid ${pid}) is running on ${dbPath(cmd)}`, { mustExist: true });
      try {
        await withDb(cmd, async (db) => {
          holdPgRunLock(db, `a refresh or watch is running on ${dbPath(cmd)}`);
          const sites = flags.site.length ? [...new Set(flags.site.map((ref) => siteOption(db, ref)!))] : null;
          const settings = { ...readSettings(db), ...Object.fromEntries(run) } as Settings;
          const progress = refreshProgress();
          onLockWait((file, at) => progress.onNotice(lockWaitLine(file, at)));
          const started = Date.now();
          const r = await interruptible((signal) =>
            runIterations(db, {
              settings, schedule: flags.schedule, sites, budgetMs, everyMs, iterations, until, delta, value: flags.value, cost, resolve,
              proxy: flags.proxy ?? null, signal,
              onStart: (e) => progress.start(e.gen, e.planned, e.checked),
              onCheck: (e) => progress.onCheck(e),
              onWait: (w) => progress.onWait(w),
              onIteration: (it) => {
                progress.clear();
                process.stdout.write(flags.json ? JSON.stringify(iterationJson(it)) + '\n' : formatIteration(it));
              },
            }),
          ).finally(() => onLockWait(sayLockWait));
          progress.clear();
          if (r.iterations.length === 0 && !flags.json) process.stdout.write('no iteration started (--until has passed)\n');
          if (r.reason === 'interrupted') process.exitCode = 130;
          else {
            const waited = r.reason === 'waiting' ? Date.now() - started : null;
            const said = endIfNothingReached(r.failures, waited, 'beebot refresh', 'nothing recorded, the pages stay to be checked');
            // some server answered, and the run gave up on pages that failed for now
            const f = r.failures;
            if (!said && f.pages > 0 && !flags.json) process.stdout.write(waitingPagesLine(f.pages, f.sites, null, Date.now(), 'beebot refresh') + '\n');
          }
        }, { mustExist: true });
      } finally {
        release();
      }
    });
}

export function parseUntil(text: string): number {
  if (/^\d+(?:\.\d+)?\s*(ms|s|m|h|d|w)$/i.test(text.trim())) return Date.now() + parseDuration(text, '--until');
  try {
    return Date.parse(parseSince(text, new Date())); // an ISO time, read like --since's
  } catch {
    throw new UsageError(`--until wants an ISO time like 2026-12-01T08:00 or a duration from now like 8h, got '${text}'`);
  }
}

function parseCost(text: string): { a: number; b: number; n: number } {
  const m = /^\s*(\d+(?:\.\d+)?(?:e-?\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/i.exec(text);
  if (!m) throw new UsageError(`--cost wants A,B (ms per byte, ms), e.g. 0.002,150, got '${text}'`);
  return { a: Number(m[1]), b: Number(m[2]), n: 0 };
}

function iterationJson(it: IterationSummary) {
  const x = it.settings;
  return {
    iteration: it.gen, resumed: it.resumed, finished: it.finished, schedule: x.schedule, delta: x.delta, value: x.value,
    budget_ms: x.budgetMs, cost_a: x.cost.a, cost_b: x.cost.b, planned: it.planned, checked: it.checked, est_ms: Math.round(it.estMs),
    unchanged: it.counts.keep, changed: it.counts.replace, gone: it.counts.gone, failed: it.counts.retry, skipped: it.counts.skipped,
    changed_chars: it.changed, links_added: it.linksAdded, links_gone: it.linksGone,
  };
}

export function formatIteration(it: IterationSummary): string {
  const x = it.settings;
  const c = it.counts;
  return [
    `iteration ${it.gen}${it.resumed ? ' (resumed)' : ''}${it.finished ? '' : ' stopped (run again to resume)'}: ${x.schedule}, ΔS ${x.delta}, value ${x.value}`,
    `  checked ${it.checked} of ${it.planned} planned pages, ${formatDuration(it.estMs)} of ${formatDuration(x.budgetMs)} by the model ` +
      `(check time = ${x.cost.a.toPrecision(3)} ms/byte × size + ${Math.round(x.cost.b)} ms${x.cost.n ? `, fitted on ${x.cost.n} fetches` : ''})`,
    `  ${c.keep} unchanged, ${c.replace} changed or new, ${c.gone} gone, ${c.retry} failed (kept as they were), ${c.skipped} skipped (robots.txt); ` +
      `links: ${it.linksAdded} new or back, ${it.linksGone} gone`,
    '',
  ].join('\n');
}
