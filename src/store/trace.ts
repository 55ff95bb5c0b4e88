import type { Db } from './db.js';
import { listSites } from './sites.js';

/** Each site's reward sequence in crawl order: the input of `beebot simulate`. */
export interface Trace {
  sites: { id: number; name: string; group: string | null; rewards: number[] }[];
  /** Every pull in crawl order: [seq, site id, reward, time]. */
  pulls: [number, number, number, string][];
}

export function readTrace(db: Db): Trace {
  const sites = listSites(db).map((s) => ({ id: s.id, name: s.short ?? s.name ?? s.url, group: s.group, rewards: [] as number[] }));
  const byId = new Map(sites.map((s) => [s.id, s]));
  const pulls = db.prepare('SELECT seq, site_id, reward, at FROM fetches ORDER BY seq').raw().all() as Trace['pulls'];
  for (const [, siteId, reward] of pulls) byId.get(siteId)?.rewards.push(reward);
  return { sites, pulls };
}
