import type { Db } from '../db/db.js';

/** What the report reads of the pull log (fetches) beyond `status`: streamed, so memory does not grow with the crawl. */

/** Each site's name (null when it has none), by id. */
export function siteNames(db: Db): Map<number, string | null> {
  return new Map(db.prepare('SELECT id, name FROM sites').raw().all() as [number, string | null][]);
}

/** Pulls per site. */
export function pullsBySite(db: Db): Map<number, number> {
  return new Map(db.prepare('SELECT site_id, count(*) FROM fetches GROUP BY site_id').raw().all() as [number, number][]);
}

/** Every pull's [site id, reward], in crawl order, one row at a time. */
export function rewardsInCrawlOrder(db: Db): Iterable<[number, number]> {
  return db.prepare('SELECT site_id, reward FROM fetches ORDER BY seq').raw().iterate() as Iterable<[number, number]>;
}

/** When the first and the last pull happened (ISO times; null before the first). */
export function pullPeriod(db: Db): { first: string | null; last: string | null } {
  return db.prepare('SELECT min(at) AS first, max(at) AS last FROM fetches').get() as { first: string | null; last: string | null };
}
