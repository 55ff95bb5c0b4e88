import type { Db } from '../db/db.js';

/**
 * What a user counts: distinct external URLs (by key) and distinct outside hosts, per site and in
 * the whole store, next to the (page, URL) pair rows. One scan of the links table each: a status
 * query, not the crawl's (the crawl keeps its counts in memory, known-external.ts).
 */
export interface DistinctCounts {
  urls: number;
  hosts: number;
}

export function distinctExternal(db: Db): DistinctCounts {
  return {
    urls: db.prepare('SELECT count(DISTINCT key) FROM external_links').pluck().get() as number,
    hosts: db.prepare('SELECT count(DISTINCT host) FROM external_links').pluck().get() as number,
  };
}

export function distinctExternalBySite(db: Db): Map<number, DistinctCounts> {
  const out = new Map<number, DistinctCounts>();
  const rows = db
    .prepare(
      `SELECT site_id, count(*), count(DISTINCT host) FROM
         (SELECT DISTINCT site_id, key, host FROM external_links) AS d GROUP BY site_id`,
    )
    .raw()
    .all() as [number, number, number][];
  for (const [id, urls, hosts] of rows) out.set(id, { urls, hosts });
  return out;
}

/** External link rows ((page, URL) pairs) per site. */
export function externalLinksBySite(db: Db): Map<number, number> {
  return new Map(db.prepare('SELECT site_id, count(*) FROM external_links GROUP BY site_id').raw().all() as [number, number][]);
}
