import type { Db } from './db.js';

/** The prediction of a queued page from its URL and anchor text (src/order). */
export type Predict = (siteId: number, url: string, anchor: string) => number;

/**
 * Score a site's queued pages again with what the crawl has learned since they were found
 * (best-first). Pages that never had a priority (start pages, pages queued by a breadth-first
 * run) get one; start pages come first. onlyUnscored: those alone (when a crawl starts: the others
 * keep the priorities an uninterrupted crawl would have given them, so a resume is exact).
 */
export function rescoreQueued(db: Db, siteId: number, predict: Predict, onlyUnscored = false): void {
  const rows = db
    .prepare(`SELECT id, url, anchor, level FROM pages WHERE site_id = ? AND status = 'queued' ${onlyUnscored ? 'AND priority IS NULL' : ''}`)
    .raw()
    .all(siteId) as [number, string, string | null, number][];
  const set = db.prepare('UPDATE pages SET priority = ? WHERE id = ?');
  db.transaction(() => {
    for (const [id, url, anchor, level] of rows) set.run(level === 0 ? Number.MAX_VALUE : predict(siteId, url, anchor ?? ''), id);
  })();
}
