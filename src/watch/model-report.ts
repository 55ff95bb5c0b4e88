import type { Db } from '../db/db.js';
import { WatchStore } from './watch-store.js';
import { GroupModels } from './group-models.js';
import { RateModel, validate, type ForestOptions } from './model.js';

/**
 * What `beebot watch model` shows: per merged group, its items of the 30 days before
 * `now`, whether it was merged into its host, the article's two R² (validate(): random
 * cross-validation, newest data), and its busiest hours of the week by the fitted model.
 */

export interface GroupReport {
  group: string;
  /** the group keys in it; any other than the group itself: merged into the host */
  keys: string[];
  merged: boolean;
  hubs: number;
  items: number;
  /** when watching its first hub began (epoch ms) */
  since: number | null;
  r2: { crossValidated: number; newest: number } | null;
  /** the three hours of the week with the highest predicted rate: day 0 = Sunday, items per hour */
  busiest: { day: number; hour: number; rate: number }[];
}

export const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The time the history ends: the last watch check (a database built on a virtual clock), else the real time. */
export function historyEnd(db: Db): number {
  return new WatchStore(db).lastCheckAt() ?? Date.now();
}

export function modelReport(db: Db, now: number, opts: ForestOptions & { minGroupItems?: number } = {}): GroupReport[] {
  const models = new GroupModels(new WatchStore(db), { ...opts, refitEvery: Infinity });
  return models.all(now).map((g) => {
    const d = models.data(g, now);
    const merged = d.keys.some((k) => k !== g);
    // No items, or not the hours cross-validation cuts into its folds (watching began within the
    // last hours): nothing to fit yet, rather than an error. Its items are counted all the same.
    if (d.items === 0 || d.rows.length < 5) return { group: g, keys: d.keys, merged, hubs: d.hubs, items: d.items, since: d.since, r2: null, busiest: [] };
    const v = validate(d.rows, opts);
    const week = RateModel.fit(d.rows, opts).week();
    const busiest = week
      .map((rate, c) => ({ day: Math.floor(c / 24), hour: c % 24, rate }))
      .sort((a, b) => b.rate - a.rate || a.day - b.day || a.hour - b.hour)
      .slice(0, 3);
    return { group: g, keys: d.keys, merged, hubs: d.hubs, items: d.items, since: d.since, r2: v, busiest };
  });
}
