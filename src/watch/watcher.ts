import type { Db } from '../db/db.js';
import type { Settings } from '../store/settings.js';
import { RefreshLog } from '../refresh/refresh-log.js';
import { WatchStore, type Hub, type StoredItem } from './watch-store.js';
import { PageChecker, type CheckOutcome, type Unreached } from '../refresh/page-check.js';
import { FailingForNow, type FailuresForNow } from '../refresh/failing-for-now.js';
import type { WaitState } from '../net/waiting.js';
import { realClock, type Clock } from '../time/clock.js';
import { appearance } from './appearance.js';
import { GroupModels, type GroupModelOptions } from './group-models.js';
import { groupKey } from './groups.js';
import { shownTimes, timeKey } from './hub-times.js';
import { dateFromUrl } from './published.js';
import { fixedNext, learnedNext, poissonNext } from './schedule.js';

/**
 * `beebot watch`: keeps checking hub pages, each when it is due, the earliest first,
 * sleeping on the clock in between. A check is PageChecker.check (conditional request, the
 * crawl's politeness, link history); the hub's links first seen by it are its new items, each
 * with its appearance (appearance.ts): the time the hub shows next to the link when it lies
 * between the hub's last check and this one, else those two checks' bounds. The next check
 * comes from the schedule (schedule.ts). A check's items, its log row and the hub's next check
 * are written in the check's own transaction, so a stopped watch resumes where it was. While no
 * server has answered, a hub whose check failed for now is put off until its host may be asked
 * again, nothing recorded, and the others go on (failing-for-now.ts); when nothing answers for the
 * retry span, the watch ends.
 */

export const watchSchedules = ['learned', 'poisson', 'fixed'] as const;
export type WatchSchedule = (typeof watchSchedules)[number];

/**
 * How the learned schedule spends its checks (see learnedRate):
 *  - count: check when the expected new items since the last check reach the threshold, so
 *    checks follow the rate itself; the fewest empty checks (best hit rate). Its mean delay for
 *    the checks spent is no better than a fixed interval's: with interval θ/λ(t), the delay
 *    per item is θ/2λ and the cost N/θ, so delay × cost = T/2, as for any fixed interval.
 *  - sqrt: checks in proportion to the square root of the rate (the expected count of a rate
 *    √(λ(t)·λ̄), λ̄ the hub's mean): for a given number of checks the least mean delay
 *    (minimising Σ λ·I/2 under Σ 1/I fixed gives I ∝ 1/√λ), at a lower hit rate than count's.
 */
export const learnedRules = ['count', 'sqrt'] as const;
export type LearnedRule = (typeof learnedRules)[number];

/** A Sunday midnight UTC: the 168 hours after it are one of each hour of the week. */
const WEEK_START = Date.UTC(1970, 0, 4);

/** The rate learnedNext integrates under each rule (items per hour at t). */
export function learnedRate(rate: (t: number) => number, rule: LearnedRule): (t: number) => number {
  if (rule === 'count') return rate;
  let sum = 0;
  for (let h = 0; h < 168; h++) sum += Math.max(0, rate(WEEK_START + h * 3_600_000));
  const mean = sum / 168;
  return (t) => Math.sqrt(Math.max(0, rate(t)) * mean);
}

export interface WatchOptions {
  settings: Settings;
  schedule: WatchSchedule;
  /** site ids; null: all */
  sites: number[] | null;
  /** the fixed interval (and the learned/Poisson one while history is short), ms */
  interval: number;
  min: number;
  max: number;
  /** expected new items that make a check worth it (learned, poisson) */
  threshold: number;
  /** the learned schedule's rule (default count) */
  rule?: LearnedRule;
  models?: GroupModelOptions;
  /** no check starts after this (epoch ms); null: until stopped */
  until: number | null;
  /** add pages whose re-checks found new links (default true) */
  autoHubs?: boolean;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  signal: AbortSignal;
  clock?: Clock;
  onCheck?: (e: CheckEvent) => void;
  /** Only hubs that failed for now are due: why, and what happens next (called at each wait). */
  onWait?: (w: WaitState) => void;
}

export interface CheckEvent {
  hub: number;
  url: string;
  group: string;
  at: number;
  action: CheckOutcome['action'];
  httpStatus: number | null;
  error: string | null;
  items: StoredItem[];
  next: number;
  schedule: string;
}

export interface WatchSummary {
  /** waiting: no server answered, and the watch waited for the hubs that failed for now as long as it may */
  reason: 'done' | 'interrupted' | 'no-hubs' | 'waiting';
  hubsAdded: number;
  checks: number;
  hits: number;
  items: number;
  /** items whose hub showed their publication time: found − published, ms */
  knownDelays: number;
  delaySum: number;
  failures?: FailuresForNow;
}

export const hitRate = (s: Pick<WatchSummary, 'checks' | 'hits'>): number => (s.checks === 0 ? 0 : s.hits / s.checks);
export const meanDelay = (s: Pick<WatchSummary, 'knownDelays' | 'delaySum'>): number | null => (s.knownDelays === 0 ? null : s.delaySum / s.knownDelays);

/** Add as hubs the pages whose re-checks (beebot refresh, crawl --refresh) found new links. */
export function addRefreshHubs(db: Db, sites: number[] | null, now: number): number {
  const store = new WatchStore(db);
  let n = 0;
  db.transaction(() => {
    for (const id of store.refreshHubs(sites)) {
      const url = store.pageUrl(id)!;
      if (store.add(id, groupKey(url), 'auto', now)) n++;
    }
  })();
  return n;
}

export async function runWatch(db: Db, o: WatchOptions): Promise<WatchSummary> {
  const clock = o.clock ?? realClock;
  const store = new WatchStore(db);
  const refreshLog = new RefreshLog(db, () => clock.now());
  const models = new GroupModels(store, o.models);
  const sum: WatchSummary = { reason: 'done', hubsAdded: 0, checks: 0, hits: 0, items: 0, knownDelays: 0, delaySum: 0 };
  if (o.autoHubs ?? true) sum.hubsAdded = addRefreshHubs(db, o.sites, clock.now());
  if (!store.nextDue(o.sites)) return { ...sum, reason: 'no-hubs' };
  const checker = await PageChecker.open(db, { settings: o.settings, resolve: o.resolve, proxy: o.proxy, clock });
  const failing = new FailingForNow<Hub>(checker, { settings: o.settings, proxy: o.proxy, clock, onWait: o.onWait });
  const bounds = { min: o.min, max: o.max, threshold: o.threshold, fixed: o.interval };
  const end = (reason: WatchSummary['reason']): WatchSummary => ({ ...sum, reason, failures: failing.summary() });
  try {
    for (;;) {
      if (o.signal.aborted) return end('interrupted');
      if (failing.waitedOut()) return end('waiting');
      // a hub put off whose host may be asked again, else the first due of the others
      let hub = failing.due();
      if (hub && o.until !== null && clock.now() > o.until) break;
      if (!hub) {
        const next = store.nextDue(o.sites, failing.ids());
        if (!next && failing.size === 0) break;
        const at = Math.min(next ? (next.nextCheck ?? clock.now()) : Infinity, failing.nextTry() ?? Infinity);
        if (o.until !== null && at > o.until) break;
        if (at > clock.now() || !next) {
          try {
            // while hubs fail for now, the wait says why, and ends when the watch gives up
            if (failing.size > 0) await failing.wait(o.signal, at);
            else await clock.sleep(at - clock.now(), o.signal);
          } catch {
            return end('interrupted');
          }
          continue;
        }
        hub = next;
      }
      const ev = await checkHub(hub);
      if (ev === 'aborted') return end('interrupted');
      if ('unreached' in ev) {
        failing.put(hub, ev);
        continue;
      }
      sum.checks++;
      if (ev.items.length > 0) sum.hits++;
      sum.items += ev.items.length;
      for (const it of ev.items) {
        if (it.source !== 'published') continue;
        sum.knownDelays++;
        sum.delaySum += it.found - it.point!;
      }
      o.onCheck?.(ev);
    }
  } finally {
    await checker.close();
  }
  return end('done');

  async function checkHub(hub: Hub): Promise<CheckEvent | Unreached | 'aborted'> {
    const started = clock.now();
    const since = new Date(started).toISOString();
    // The previous sighting: the watch's last check, else the hub's last read by a crawl or refresh.
    const prev = hub.lastCheck ?? store.lastRead(hub.id);
    const learned = o.schedule === 'learned' ? models.rateFor(hub, started) : null;
    const rule = o.rule ?? 'count';
    const rate = learned === null ? null : learnedRate(learned, rule);
    const validators = store.validators(hub.id) ?? refreshLog.validators(hub.id);
    let times: Map<string, number> | null = null;
    let ev: CheckEvent | undefined;
    const r = await checker.check(
      hub, validators, o.signal,
      (c) => {
        // The hub was as answered at some time between sending the request and reading the answer:
        // an item first seen now appeared after the last check's request was sent (prev) and by
        // the time this answer was read; the next check's interval starts at this request.
        const at = c.sentAt;
        const answered = clock.now();
        const found = c.action === 'replace' ? store.newItems(hub.id, since, new Date(answered).toISOString()) : [];
        const items: StoredItem[] = prev === null || !(prev < answered) ? [] : found.map((it) => {
          const published = times?.get(timeKey(it.url)) ?? (it.kind === 'page' ? dateFromUrl(it.url) : null);
          return { ...it, hub: hub.id, group: hub.group, found: answered, ...appearance(prev, answered, published) };
        });
        const stored = store.storeItems(items);
        let schedule: string = o.schedule;
        let next: number;
        if (o.schedule === 'fixed') next = fixedNext(at, o.interval);
        else if (o.schedule === 'poisson') next = poissonNext([...store.history(hub.id), { at, found: stored > 0 }], bounds);
        else {
          if (rate === null) schedule = 'learned-fixed';
          else if (rule === 'sqrt') schedule = 'learned-sqrt';
          next = learnedNext(at, rate, bounds);
        }
        // Whole ms, as the next_check columns hold them (PostgreSQL's BIGINT refuses a fraction;
        // SQLite kept it as a float); rounded up, so never before the schedule's time.
        next = Math.ceil(next);
        store.logCheck({ hub: hub.id, at, action: c.action, httpStatus: c.httpStatus, newItems: stored, nextCheck: next, schedule, validators: c.validators });
        models.noteItems(hub.group, stored, at);
        ev = { hub: hub.id, url: hub.url, group: hub.group, at, action: c.action, httpStatus: c.httpStatus, error: c.error, items: stored === items.length ? items : items.slice(0, stored), next, schedule };
      },
      (body, url) => {
        times = shownTimes(new TextDecoder('utf-8').decode(body), url, clock.now());
      },
    );
    if (r === 'aborted' || 'unreached' in r) return r;
    return ev!;
  }
}
