import type { WatchStore } from './watch-store.js';
import { HOUR, hourlyCounts, WINDOW_HOURS, type HourCount } from './features.js';
import { mergeGroups, MIN_GROUP_ITEMS } from './groups.js';
import { modelReady, RateModel, type ForestOptions } from './model.js';

/**
 * The learned schedule's models, one per merged group, fitted from the store and
 * kept until stale: after `refitEvery` of clock time, or once `refitItems` new items of the
 * group were stored. Groups are merged by their item counts of the last 30 days (groups.ts),
 * recomputed at the same pace.
 *
 * A group's forest predicts the new items per hour of the whole group; a hub gets its share,
 * (its items + 1) / (the group's items + its hubs) over the window, so two hubs of one group
 * are not each checked as if it published everything (the +1 keeps a quiet hub checked).
 */

export const WINDOW = WINDOW_HOURS * HOUR;

export interface GroupModelOptions extends ForestOptions {
  /** the merging threshold: items in 30 days (groups.ts) */
  minGroupItems?: number;
  /** refit after this much clock time (default 24 h) */
  refitEvery?: number;
  /** or after this many new items of the group (default 100) */
  refitItems?: number;
}

interface Fitted {
  model: RateModel;
  at: number;
  /** items of each hub in the window, and in all */
  perHub: Map<number, number>;
  total: number;
  hubs: number;
}

export interface GroupData {
  /** the merged group's key */
  group: string;
  /** the keys merged into it */
  keys: string[];
  /** when watching its first hub began */
  since: number | null;
  hubs: number;
  /** items per hour over the 30 days before now, from the first whole hour watched */
  rows: HourCount[];
  items: number;
  perHub: Map<number, number>;
}

export class GroupModels {
  private into = new Map<string, string>();
  private mergedAt = -Infinity;
  private fitted = new Map<string, Fitted>();
  private added = new Map<string, number>();
  private readonly min: number;
  private readonly refitEvery: number;
  private readonly refitItems: number;

  constructor(
    private store: WatchStore,
    private opts: GroupModelOptions = {},
  ) {
    this.min = opts.minGroupItems ?? MIN_GROUP_ITEMS;
    this.refitEvery = opts.refitEvery ?? 24 * HOUR;
    this.refitItems = opts.refitItems ?? 100;
  }

  /** The merged group of a group key as of the last merge. */
  groupOf(key: string, now: number): string {
    this.merge(now);
    return this.into.get(key) ?? mergeGroups(new Map([[key, 0]]), this.min).get(key)!;
  }

  /** New items were stored for a hub of `key`: counts towards refitting its group. */
  noteItems(key: string, n: number, now: number): void {
    if (n <= 0) return;
    const g = this.groupOf(key, now);
    this.added.set(g, (this.added.get(g) ?? 0) + n);
  }

  /** The hub's predicted rate (items per hour at t), or null while its group lacks history (the fixed interval then). */
  rateFor(hub: { id: number; group: string }, now: number): ((t: number) => number) | null {
    const g = this.groupOf(hub.group, now);
    let f = this.fitted.get(g);
    if (!f || now - f.at >= this.refitEvery || (this.added.get(g) ?? 0) >= this.refitItems) {
      // Readiness first, from the hubs alone: a young group's items are not read at every check.
      const since = this.since(g, now);
      if (since === null || !modelReady(since, now)) return null;
      const data = this.data(g, now);
      f = { model: RateModel.fit(data.rows, this.opts), at: now, perHub: data.perHub, total: data.items, hubs: data.hubs };
      this.fitted.set(g, f);
      this.added.set(g, 0);
    }
    const model = f.model;
    const share = ((f.perHub.get(hub.id) ?? 0) + 1) / (f.total + Math.max(1, f.hubs));
    return (t) => model.rate(t) * share;
  }

  /** Everything known of merged group `g` at `now`: its keys, history start, hourly counts over the window. */
  data(g: string, now: number): GroupData {
    this.merge(now);
    const keys = new Set([...this.into].filter(([, to]) => to === g).map(([k]) => k));
    const watched = this.store.groups().filter((x) => this.groupOf(x.group, now) === g);
    for (const w of watched) keys.add(w.group);
    const since = watched.reduce<number | null>((m, w) => (w.since === null ? m : m === null ? w.since : Math.min(m, w.since)), null);
    const items = [...keys].flatMap((k) => this.store.groupItems(k, now - WINDOW - HOUR));
    const perHub = new Map<number, number>();
    for (const it of items) perHub.set(it.hub, (perHub.get(it.hub) ?? 0) + 1);
    // Hours before watching began were not watched: they are not rows of zero items.
    const rows = hourlyCounts(items, now, WINDOW_HOURS, this.opts.offset ?? 0).filter((r) => since === null || r.start >= since);
    return { group: g, keys: [...keys].sort(), since, hubs: watched.reduce((s, w) => s + w.hubs, 0), rows, items: items.length, perHub };
  }

  /** When watching the first hub of merged group `g` began. */
  private since(g: string, now: number): number | null {
    let m: number | null = null;
    for (const w of this.store.groups()) if (w.since !== null && this.groupOf(w.group, now) === g) m = m === null ? w.since : Math.min(m, w.since);
    return m;
  }

  /** Every merged group (of the watched hubs and of the stored items). */
  all(now: number): string[] {
    this.merge(now);
    const out = new Set(this.into.values());
    for (const w of this.store.groups()) out.add(this.groupOf(w.group, now));
    return [...out].sort();
  }

  private merge(now: number): void {
    if (now - this.mergedAt < this.refitEvery) return;
    const counts = this.store.groupCounts(now - WINDOW);
    for (const w of this.store.groups()) if (!counts.has(w.group)) counts.set(w.group, 0);
    const into = mergeGroups(counts, this.min);
    // A new merge may move keys: models of groups whose membership changed are refitted.
    for (const [k, g] of into) if (this.into.get(k) !== g) {
      this.fitted.delete(g);
      const old = this.into.get(k);
      if (old !== undefined) this.fitted.delete(old);
    }
    this.into = into;
    this.mergedAt = now;
  }
}
