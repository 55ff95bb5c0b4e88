import type { RewardMode } from '../schedule/sites/reward.js';
import type { Db } from '../db/db.js';
import { readSettings } from './settings.js';
import { listSites } from './sites.js';

/** One site's pulls in crawl order: every reward mode, the page's level and its outcome. */
export interface RecordedSite {
  id: number;
  name: string;
  group: string | null;
  /** the rewards the crawl's own mode gave (what its scheduler saw) */
  rewards: number[];
  urls: number[];
  hosts: number[];
  pairs: number[];
  levels: number[];
  /** page status after the pull: done | not-html | error | redirect (the page's HTTP status in `http`) */
  statuses: string[];
  http: (number | null)[];
}

/** Each site's reward sequences in crawl order: the input of `beebot simulate`. */
export interface Trace {
  /** the reward mode the crawl ran with */
  reward: RewardMode;
  sites: RecordedSite[];
  /** Every pull in crawl order: [seq, site id, reward, time]. */
  pulls: [number, number, number, string][];
}

export function readTrace(db: Db): Trace {
  const sites: RecordedSite[] = listSites(db).map((s) => ({
    id: s.id, name: s.short ?? s.name ?? s.url, group: s.group, rewards: [], urls: [], hosts: [], pairs: [], levels: [], statuses: [], http: [],
  }));
  const byId = new Map(sites.map((s) => [s.id, s]));
  const pulls: Trace['pulls'] = [];
  // Pulls from before migration 5 (src/db/migrations.ts) counted pairs only: their urls and hosts are unknown, and the
  // pairs count stands in (a trace is always complete).
  const rows = db
    .prepare(
      `SELECT f.seq, f.site_id, f.reward, f.at, coalesce(f.reward_urls, f.reward), coalesce(f.reward_hosts, f.reward),
              coalesce(f.reward_pairs, f.reward), p.level, p.status, f.http_status
         FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq`,
    )
    .raw()
    .iterate() as Iterable<[number, number, number, string, number, number, number, number, string, number | null]>;
  for (const [seq, siteId, reward, at, urls, hosts, pairs, level, status, http] of rows) {
    pulls.push([seq, siteId, reward, at]);
    const s = byId.get(siteId);
    if (!s) continue;
    s.rewards.push(reward);
    s.urls.push(urls);
    s.hosts.push(hosts);
    s.pairs.push(pairs);
    s.levels.push(level);
    s.statuses.push(status);
    s.http.push(http);
  }
  return { reward: readSettings(db).reward, sites, pulls };
}
