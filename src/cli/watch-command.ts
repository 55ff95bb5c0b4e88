import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { BeebotError, UsageError } from '../errors.js';
import { siteOption } from './filter-options.js';
import { dbPath, isTty, printJson, withDb, withReadDb } from './context.js';
import { interruptible } from './interruptible.js';
import { waitLines } from './progress.js';
import { endIfNothingReached } from './nothing-reached.js';
import { parseResolve } from './crawl-command.js';
import { parseUntil } from './refresh-command.js';
import { holdRunLock } from './crawl-lock.js';
import { holdPgRunLock } from '../db/run-lock.js';
import { formatTable } from './table.js';
import { urlKey } from '../url/url.js';
import type { Db } from '../db/db.js';
import { pageWithKey } from '../store/sites.js';
import { parseSetting, readSettings, type Settings } from '../store/settings.js';
import { WatchStore } from '../watch/watch-store.js';
import { formatDuration, parseDuration } from '../time/duration.js';
import { groupKey, MIN_GROUP_ITEMS } from '../watch/groups.js';
import { DAYS, historyEnd, modelReport } from '../watch/model-report.js';
import { HISTORY_COLUMNS, readHistory } from '../watch/history-import.js';
import { hitRate, learnedRules, meanDelay, runWatch, watchSchedules, type CheckEvent, type LearnedRule, type WatchSchedule, type WatchSummary } from '../watch/watcher.js';
import { cannotRead } from './read-error.js';

interface WatchFlags {
  site: string[];
  for?: string;
  until?: string;
  schedule: WatchSchedule;
  rule: LearnedRule;
  interval: string;
  min: string;
  max: string;
  threshold: string;
  minGroupItems: string;
  delay?: string;
  resolve: string[];
  proxy?: string;
  json?: boolean;
}

const iso = (t: number) => new Date(t).toISOString().replace(/\.000Z$/, 'Z');

export function watchCommand(): Command {
  const watch = new Command('watch')
    .description(
      'keep checking hub pages (pages on which new child pages or external links appear) to catch new links soon after they appear: ' +
        'each hub is checked when due, its new links stored with when they appeared; the next check comes from the group\'s rhythm learned ' +
        'from history (random forest on hour of day and day of week), a Poisson estimate, or a fixed interval. Ctrl-C stops; a rerun resumes',
    )
    .option('--site <ref>', 'only this site (id, URL, host or short name; repeatable); default all', (v: string, acc: string[]) => [...acc, v], [])
    .option('--for <duration>', 'stop after this long (e.g. 8h, 2d)')
    .option('--until <time>', 'start no check after this: an ISO time, or a duration from now')
    .addOption(new Option('--schedule <name>', 'learned (the group\'s predicted rate), poisson (Cho & Garcia-Molina\'s change-rate estimate), fixed (--interval)').choices(watchSchedules).default('learned'))
    .addOption(new Option('--rule <rule>', 'learned: count (check when --threshold new items are expected: fewest empty checks) or sqrt (checks in proportion to the square root of the rate: least delay for the checks spent)').choices(learnedRules).default('count'))
    .option('--interval <duration>', 'the fixed interval; also learned/poisson\'s while a group has too little history', '10m')
    .option('--min <duration>', 'never check a hub sooner than this after its last check (learned, poisson)', '1m')
    .option('--max <duration>', 'never wait longer than this (learned, poisson)', '2h')
    .option('--threshold <n>', 'check when this many new items are expected since the last check (learned, poisson)', '1')
    .option('--min-group-items <n>', 'groups (host + first path segment) with fewer items in 30 days are merged into their host', String(MIN_GROUP_ITEMS))
    .option('--delay <ms>', 'minimum delay between requests to one host, this run')
    .option('--resolve <host:port:addr>', 'connect to addr for host, like curl (repeatable)', (v: string, acc: string[]) => [...acc, v], [])
    .option('--proxy <url>', 'send every request through this HTTP proxy')
    .option('--json', 'one JSON object per check, and the summary')
    .action(async (flags: WatchFlags, cmd: Command) => run(flags, cmd));
  // Options the subcommands share with the watch run (--json, --min-group-items) are parsed by
  // the parent, which sees them first: the subcommands read them from both.
  const shared = (o: Record<string, unknown>, cmd: Command, name: string): unknown => o[name] ?? cmd.parent!.getOptionValue(name);

  // `add <url>` and `remove <url>`: a page of the crawl, found by its URL.
  const onHub = (name: string, description: string, act: (db: Db, page: ReturnType<typeof findPage>, url: string) => void) =>
    watch
      .command(`${name} <url>`)
      .description(description)
      .action(async (url: string, _o: unknown, cmd: Command) => withDb(cmd, (db) => act(db, findPage(db, url), url), { mustExist: true }));

  onHub('add', 'watch a page of the crawl as a hub', (db, page) => {
    const store = new WatchStore(db);
    const was = store.hub(page.id);
    if (was && was.added === 'manual' && !store.isRemoved(page.id)) return void process.stdout.write(`already watched: ${page.url}\n`);
    store.add(page.id, groupKey(page.url), 'manual', Date.now());
    process.stdout.write(`watching ${page.url} (group ${groupKey(page.url)})\n`);
  });

  onHub('remove', 'stop watching a hub (an automatically found one is not added again)', (db, page, url) => {
    if (!new WatchStore(db).remove(page.id, Date.now())) throw new UsageError(`not a watched hub: ${url}`);
    process.stdout.write(`no longer watching ${page.url}\n`);
  });

  watch
    .command('import <file>')
    .description(`replay a history of checks into the watch (a CSV file with a header row; columns ${HISTORY_COLUMNS.join(', ')}; see docs/commands.md): the learned schedule then starts from it. A bad row refuses the file`)
    .action(async (file: string, _o: unknown, cmd: Command) => importHistory(file, cmd));

  watch
    .command('list')
    .description('the watched hubs: group, how added, checks, items found, last and next check')
    .option('--json', 'JSON array')
    .action(async (o: { json?: boolean }, cmd: Command) =>
      withReadDb(cmd, (db) => {
        const hubs = new WatchStore(db).list();
        if (shared(o, cmd, 'json')) {
          return printJson(hubs.map((h) => ({
            id: h.id, url: h.url, group: h.group, added: h.added, checks: h.checks, items: h.items,
            last_check: h.lastCheck === null ? null : iso(h.lastCheck), next_check: h.nextCheck === null ? null : iso(h.nextCheck),
          })));
        }
        if (hubs.length === 0) return void process.stdout.write('no hubs watched (beebot watch add <url>, or beebot refresh to find them)\n');
        process.stdout.write(formatTable(
          ['id', 'url', 'group', 'added', 'checks', 'items', 'last check', 'next check'],
          hubs.map((h) => [h.id, h.url, h.group, h.added, h.checks, h.items, h.lastCheck === null ? '-' : iso(h.lastCheck), h.nextCheck === null ? 'now' : iso(h.nextCheck)]),
          isTty(),
        ));
      }),
    );

  watch
    .command('model')
    .description('per hub group: new items in the last 30 days, merged into its host or not, R² of the random forest by cross-validation and on the newest data, the busiest hours')
    .option('--min-group-items <n>', `the merging threshold (items in 30 days; default ${MIN_GROUP_ITEMS})`)
    .option('--json', 'JSON array')
    .action(async (o: { json?: boolean; minGroupItems?: string }, cmd: Command) =>
      withReadDb(cmd, (db) => {
        const minGroupItems = parseCount(shared(o, cmd, 'minGroupItems') as string, '--min-group-items', 1);
        const now = historyEnd(db);
        const groups = modelReport(db, now, { minGroupItems });
        if (shared(o, cmd, 'json')) {
          return printJson({
            as_of: iso(now),
            groups: groups.map((g) => ({
              group: g.group, keys: g.keys, merged: g.merged, hubs: g.hubs, items_30d: g.items, since: g.since === null ? null : iso(g.since),
              r2_cv: g.r2?.crossValidated ?? null, r2_newest: g.r2?.newest ?? null,
              busiest: g.busiest.map((b) => ({ day: DAYS[b.day], hour: b.hour, rate: Number(b.rate.toFixed(3)) })),
            })),
          });
        }
        if (groups.length === 0) return void process.stdout.write('no hub groups yet (beebot watch add <url>)\n');
        process.stdout.write(`hub groups, the 30 days before ${iso(now)}\n`);
        const r = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(2));
        process.stdout.write(formatTable(
          ['group', 'merged', 'hubs', 'items 30d', 'R² cv', 'R² newest', 'busiest hours (items/h)'],
          groups.map((g) => [
            g.group, g.merged ? `yes (${g.keys.length} keys)` : 'no', g.hubs, g.items, r(g.r2?.crossValidated), r(g.r2?.newest),
            g.busiest.map((b) => `${DAYS[b.day]} ${String(b.hour).padStart(2, '0')}h ${b.rate.toFixed(2)}`).join(', ') || '-',
          ]),
          isTty(),
        ));
      }),
    );
  return watch;
}

/** A page of the crawl by its URL (any spelling with the same key). */
function findPage(db: Db, url: string): { id: number; url: string } {
  if (!URL.canParse(url)) throw new UsageError(`not a URL: '${url}'`);
  const p = pageOf(db, url);
  if (p) return p;
  throw new UsageError(`not a page of this crawl: ${url} (crawl its site first)`);
}

function pageOf(db: Db, url: string): { id: number; url: string } | undefined {
  const s = readSettings(db);
  return pageWithKey(db, urlKey(new URL(url), s.normalize, s['session-ids']));
}

/** `watch import`: past checks and items from a CSV file into the watch's tables, all or nothing. */
async function importHistory(file: string, cmd: Command): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(cannotRead(file, err));
  }
  const release = holdRunLock(dbPath(cmd), (pid) => `a crawl, refresh or watch (pid ${pid}) is running on ${dbPath(cmd)}`, { mustExist: true });
  try {
    await withDb(cmd, (db) => {
      holdPgRunLock(db, `a refresh or watch is running on ${dbPath(cmd)}`);
      const store = new WatchStore(db);
      const found = readHistory(text, (url) => {
        const page = pageOf(db, url);
        if (!page) return undefined;
        const hub = store.hub(page.id);
        return { id: page.id, group: hub?.group ?? groupKey(page.url), lastCheck: hub?.lastCheck ?? null };
      }, Date.now());
      if (!found.ok) {
        const e = found.errors;
        throw new UsageError(`nothing imported from ${file}: ${e.slice(0, 3).join('; ')}${e.length > 3 ? `; and ${e.length - 3} more` : ''}`);
      }
      let items = 0;
      db.transaction(() => {
        const now = Date.now();
        for (const id of found.hubs) if (!store.hub(id) || store.isRemoved(id)) store.add(id, groupKey(store.pageUrl(id)!), 'manual', now);
        for (const c of found.checks) {
          const stored = store.storeItems(c.items);
          items += stored;
          store.logCheck({
            hub: c.hub, at: c.at, action: c.items.length ? 'replace' : 'keep', httpStatus: null, newItems: stored, nextCheck: c.next,
            schedule: 'imported', validators: { etag: null, lastModified: null },
          });
        }
      })();
      process.stdout.write(`imported ${found.checks.length} checks and ${items} items on ${found.hubs.length} hubs\n`);
    }, { mustExist: true });
  } finally {
    release();
  }
}

function parseCount(v: string, option: string, min: number): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min) throw new UsageError(`${option} must be an integer >= ${min}, got '${v}'`);
  return n;
}

async function run(flags: WatchFlags, cmd: Command): Promise<void> {
  const resolve = parseResolve(flags.resolve);
  if (flags.for !== undefined && flags.until !== undefined) throw new UsageError('give --for or --until, not both');
  const forMs = flags.for === undefined ? null : parseDuration(flags.for, '--for');
  if (forMs !== null && forMs <= 0) throw new UsageError('--for must be more than 0');
  const until = forMs !== null ? Date.now() + forMs : flags.until === undefined ? null : parseUntil(flags.until);
  const interval = parseDuration(flags.interval, '--interval');
  const min = parseDuration(flags.min, '--min');
  const max = parseDuration(flags.max, '--max');
  if (!(interval > 0)) throw new UsageError('--interval must be more than 0');
  if (!(min > 0) || max < min) throw new UsageError(`need 0 < --min <= --max, got ${flags.min} and ${flags.max}`);
  const threshold = Number(flags.threshold);
  if (flags.threshold.trim() === '' || !(threshold > 0)) throw new UsageError(`--threshold must be a number > 0, got '${flags.threshold}'`);
  const minGroupItems = parseCount(flags.minGroupItems, '--min-group-items', 1);
  if (flags.proxy !== undefined && !/^https?:\/\/[^/]+/i.test(flags.proxy)) throw new UsageError(`--proxy must be an http(s) URL, got '${flags.proxy}'`);
  const delay = flags.delay === undefined ? [] : [['delay', parseSetting('delay', flags.delay)] as const];
  const release = holdRunLock(dbPath(cmd), (pid) => `a crawl, refresh or watch (pid ${pid}) is running on ${dbPath(cmd)}`, { mustExist: true });
  try {
    await withDb(cmd, async (db) => {
      holdPgRunLock(db, `a refresh or watch is running on ${dbPath(cmd)}`);
      const sites = flags.site.length ? [...new Set(flags.site.map((ref) => siteOption(db, ref)!))] : null;
      const settings = { ...readSettings(db), ...Object.fromEntries(delay) } as Settings;
      const started = Date.now();
      const waits = waitLines();
      const sum = await interruptible((signal) =>
        runWatch(db, {
          settings, schedule: flags.schedule, rule: flags.rule, sites, interval, min, max, threshold, models: { minGroupItems }, until, resolve, proxy: flags.proxy ?? null, signal,
          onCheck: (e) => {
            waits.over();
            process.stdout.write(flags.json ? JSON.stringify(checkJson(e)) + '\n' : formatCheck(e));
          },
          onWait: waits.onWait,
        }),
      );
      if (sum.reason === 'no-hubs') throw new BeebotError('no hubs to watch: add one with `beebot watch add <url>`, or let `beebot refresh` find pages with new links');
      process.stdout.write(flags.json ? JSON.stringify({ summary: summaryJson(sum, Date.now() - started) }) + '\n' : formatSummary(sum, Date.now() - started));
      if (sum.reason === 'interrupted') process.exitCode = 130;
      else if (sum.failures) endIfNothingReached(sum.failures, sum.reason === 'waiting' ? Date.now() - started : null, 'beebot watch', 'nothing recorded, the hubs stay due');
    }, { mustExist: true });
  } finally {
    release();
  }
}

function checkJson(e: CheckEvent) {
  return {
    at: iso(e.at), hub: e.url, group: e.group, action: e.action, http_status: e.httpStatus, error: e.error, new_items: e.items.length,
    items: e.items.map((i) => ({ kind: i.kind, url: i.url, from: iso(i.from), to: iso(i.to), appeared: i.point === null ? null : iso(i.point), source: i.source })),
    next_check: iso(e.next), schedule: e.schedule,
  };
}

function formatCheck(e: CheckEvent): string {
  const status = e.httpStatus === null ? (e.error ?? e.action) : String(e.httpStatus);
  const bySource = new Map<string, number>();
  for (const i of e.items) bySource.set(i.source, (bySource.get(i.source) ?? 0) + 1);
  const found = e.items.length === 0 ? 'nothing new' : `${e.items.length} new (${[...bySource].map(([s, n]) => `${n} ${s}`).join(', ')})`;
  return `${iso(e.at)}  ${e.url}  ${status}  ${found}  next in ${formatDuration(e.next - e.at)} (${e.schedule})\n`;
}

function summaryJson(s: WatchSummary, ms: number) {
  const d = meanDelay(s);
  return {
    reason: s.reason, hubs_added: s.hubsAdded, checks: s.checks, hits: s.hits, hit_rate: hitRate(s), items: s.items,
    mean_delay_ms: d === null ? null : Math.round(d), delays_known: s.knownDelays, ms,
  };
}

const WATCH_END: Record<WatchSummary['reason'], string> = {
  done: 'done', 'no-hubs': 'done', interrupted: 'stopped (run again to resume)', waiting: 'stopped: only hubs that failed for now were due, waited for as long as this run may (run again to resume)',
};

function formatSummary(s: WatchSummary, ms: number): string {
  const d = meanDelay(s);
  return [
    `watch ${WATCH_END[s.reason]} after ${formatDuration(ms)}${s.hubsAdded ? `; ${s.hubsAdded} hubs found and added` : ''}`,
    `  ${s.checks} checks, ${s.hits} found something new (hit rate ${(hitRate(s) * 100).toFixed(0)} %), ${s.items} new items; ` +
      `mean delay ${d === null ? 'unknown (no item showed its publication time)' : `${formatDuration(d)} over the ${s.knownDelays} items with a publication time`}`,
    '',
  ].join('\n');
}
