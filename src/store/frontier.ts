import type { Db } from './db.js';

export interface FrontierPage {
  id: number;
  siteId: number;
  url: string;
  level: number;
  /** anchor text of the link that queued it (best-first crawls only) */
  anchor?: string | null;
}

/**
 * The breadth-first frontier, kept in SQLite (not in memory) so it survives a kill and scales:
 * the next page of a site is its unprocessed internal link of the lowest level, ties in
 * discovery order (page id). The (site_id, status, level, id) index answers it directly.
 */
export class Frontier {
  private next;

  /**
   * bestFirst: the eligible page (level <= maxLevel) of highest priority instead, ties in
   * breadth-first order; pages_best (partial: queued pages with a priority) answers it.
   */
  constructor(db: Db, bestFirst = false) {
    this.next = db.prepare(
      bestFirst
        ? `SELECT id, site_id AS siteId, url, level, anchor FROM pages
           WHERE site_id = ? AND status = 'queued' AND priority IS NOT NULL AND level <= ? ORDER BY priority DESC, level, id LIMIT 1`
        : `SELECT id, site_id AS siteId, url, level FROM pages
           WHERE site_id = ? AND status = 'queued' AND level <= ? ORDER BY level, id LIMIT 1`,
    );
  }

  /** The page to fetch next for a site, or undefined when the site is exhausted up to maxLevel. */
  nextPage(siteId: number, maxLevel: number): FrontierPage | undefined {
    return this.next.get(siteId, maxLevel) as FrontierPage | undefined;
  }
}
