import type { Db } from '../store/db.js';
import type { Settings } from '../store/settings.js';
import { RefreshLog } from '../store/refreshes.js';
import { WatchStore, type Hub, type StoredItem } from '../store/watch.js';
import { PageChecker, type CheckOutcome } from '../refresh/page-check.js';
import { realClock, type Clock } from '../time/clock.js';
import { appearance } from './appearance.js';
import { GroupModels, type GroupModelOptions } from './group-models.js';
import { groupKey } from './groups.js';
import { shownTimes, timeKey } from './hub-times.js';
import { dateFromUrl } from './published.js';
import { fixedNext, learnedNext, poissonNext } from './schedule.js';

/**
 * `beebot watch` (issue 15): keeps checking hub pages, each when it is due, the earliest first,
 * sleeping on the clock in between. A check is PageChecker.check (conditional request, the
 * crawl's politeness, link history); the hub's links first seen by it are its new items, each
 * with its appearance (appearance.ts): the time the hub shows next to the link when it lies
 * between the hub's last check and this one, else those two checks' bounds. The next check
 * comes from the schedule (schedule.ts). A check's items, its log row and the hub's next check
 * are written in the check's own transaction, so a stopped watch resumes where it was.
 */

export const watchSchedules = ['learned', 'poisson', 'fixed'] as const;
export type WatchSchedule = (typeof watchSchedules)[number];

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
  reason: 'done' | 'interrupted' | 'no-hubs';
  hubsAdded: number;
  checks: number;
  hits: number;
  items: number;
  /** items whose hub showed their publication time: found − published, ms */
  knownDelays: number;
  delaySum: number;
}

export const hitRate = (s: Pick<WatchSummary, 'checks' | 'hits'>): number => (s.checks === 0 ? 0 : s.hits / s.checks);
export const meanDelay = (s: Pick<WatchSummary, 'knownDelays' | 'delaySum'>): number | null => (s.knownDelays === 0 ? null : s.delaySum / s.knownDelays);

/** Add as hubs the pages whose re-checks (beebot refresh, crawl --refresh) found new links. */
export function addRefreshHubs(db: Db, sites: number[] | null, now: number): number {
  const store = new WatchStore(db);
  let n = 0;
  db.transaction(() => {
    for (const id of store.refreshHubs(sites)) {
      const url = (db.prepare('SELECT url FROM pages WHERE id = ?').pluck().get(id) as string);
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
  const bounds = { min: o.min, max: o.max, threshold: o.threshold, fixed: o.interval };
  try {
    for (;;) {
      if (o.signal.aborted) return { ...sum, reason: 'interrupted' };
      const hub = store.nextDue(o.sites)!;
      const due = hub.nextCheck ?? clock.now();
      if (o.until !== null && due > o.until) break;
      try {
        await clock.sleep(Math.max(0, due - clock.now()), o.signal);
      } catch {
        return { ...sum, reason: 'interrupted' };
      }
      const ev = await checkHub(hub);
      if (ev === 'aborted') return { ...sum, reason: 'interrupted' };
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
  return sum;

  async function checkHub(hub: Hub): Promise<CheckEvent | 'aborted'> {
    const started = clock.now();
    const since = new Date(started).toISOString();
    // The previous sighting: the watch's last check, else the hub's last read by a crawl or refresh.
    const prev = hub.lastCheck ?? store.lastRead(hub.id);
    const rate = o.schedule === 'learned' ? models.rateFor(hub, started) : null;
    const validators = store.validators(hub.id) ?? refreshLog.validators(hub.id);
    let times: Map<string, number> | null = null;
    let ev: CheckEvent | undefined;
    const r = await checker.check(
      hub, validators, o.signal,
      (c) => {
        const at = clock.now();
        const found = c.action === 'replace' ? store.newItems(hub.id, since, new Date(at).toISOString()) : [];
        const items: StoredItem[] = prev === null || !(prev < at) ? [] : found.map((it) => {
          const published = times?.get(timeKey(it.url)) ?? (it.kind === 'page' ? dateFromUrl(it.url) : null);
          return { ...it, hub: hub.id, group: hub.group, found: at, ...appearance(prev, at, published) };
        });
        const stored = store.storeItems(items);
        let schedule: string = o.schedule;
        let next: number;
        if (o.schedule === 'fixed') next = fixedNext(at, o.interval);
        else if (o.schedule === 'poisson') next = poissonNext([...store.history(hub.id), { at, found: stored > 0 }], bounds);
        else {
          if (rate === null) schedule = 'learned-fixed';
          next = learnedNext(at, rate, bounds);
        }
        store.logCheck({ hub: hub.id, at, action: c.action, httpStatus: c.httpStatus, newItems: stored, nextCheck: next, schedule, validators: c.validators });
        models.noteItems(hub.group, stored, at);
        ev = { hub: hub.id, url: hub.url, group: hub.group, at, action: c.action, httpStatus: c.httpStatus, error: c.error, items: stored === items.length ? items : items.slice(0, stored), next, schedule };
      },
      (body, url) => {
        times = shownTimes(new TextDecoder('utf-8').decode(body), url, clock.now());
      },
    );
    if (r === 'aborted') return 'aborted';
    return ev!;
  }
}
