import type { Db } from '../db/db.js';
import { NOW } from './shared-crawl.js';
import { QueuedLevels } from './queued-levels.js';
import type { FrontierPage, OrderState } from '../schedule/queued-page.js';

/**
 * The breadth-first frontier, kept in SQLite (not in memory) so it survives a kill and scales:
 * the next page of a site is its unprocessed internal link of the lowest level, ties in
 * discovery order (page id). The (site_id, status, level, id) index answers it directly.
 */
export class Frontier {
  private next;
  private waiting;
  private queuedLevels: QueuedLevels;

  /**
   * ordered: the eligible page (level <= maxLevel) of highest priority instead, ties in
   * breadth-first order of the levels pages were queued at (a nearer level waits beside the page
   * until it is fetched: queued-levels.ts); pages_best (partial: queued pages with a priority) answers it. A start
   * page holds the site's first cash (src/schedule/links/cash.ts). The unary plus keeps the level bound
   * off the index choice: on the level it would pick pages_frontier and sort the whole queue
   * (1.6 ms a call on a 4,000-page queue, against 0.01 ms walking pages_best).
   */
  constructor(db: Db, private ordered = false, shared = false) {
    // shared (PostgreSQL, several workers): pages another worker holds a live lease on are not next
    // A page that failed for now waits until its retry_at (net/failure-rule.ts); few do, so the
    // index scan in breadth-first order just passes over them.
    const due = 'AND (retry_at IS NULL OR retry_at <= ?)';
    const tried = 'attempts, first_failed_at AS firstFailedAt';
    this.queuedLevels = new QueuedLevels(db);
    const free = shared ? `AND NOT EXISTS (SELECT 1 FROM page_leases l WHERE l.page_id = pages.id AND l.expires_at > ${NOW})` : '';
    this.next = db.prepare(
      ordered
        ? `SELECT id, site_id AS siteId, url, level, priority, ${tried}, anchor, coalesce(cues, '') AS cues,
             coalesce(cash, CASE WHEN level = 0 THEN 1 ELSE 0 END) AS cash, coalesce(inherit, 0) AS inherit,
             coalesce(dist, 0) AS dist, coalesce(inlinks, 0) AS inlinks FROM pages
           WHERE site_id = ? AND status = 'queued' AND priority IS NOT NULL AND +level <= ? ${due} ${free} ORDER BY priority DESC, level, id LIMIT 1`
        : `SELECT id, site_id AS siteId, url, level, ${tried} FROM pages
           WHERE site_id = ? AND status = 'queued' AND level <= ? ${due} ${free} ORDER BY level, id LIMIT 1`,
    );
    this.waiting = db.prepare(
      `SELECT min(retry_at) FROM pages WHERE site_id = ? AND retry_at IS NOT NULL AND status = 'queued' AND level <= ?${ordered ? ' AND priority IS NOT NULL' : ''}`,
    ).pluck();
  }

  /** When the site's soonest page that failed for now may be asked again (epoch ms), or null: none waits. */
  soonestRetry(siteId: number, maxLevel: number): number | null {
    return (this.waiting.get(siteId, maxLevel) as number | null) ?? null;
  }

  /** The page to fetch next for a site, or undefined when the site is exhausted up to maxLevel. */
  nextPage(siteId: number, maxLevel: number, now: number = Date.now()): FrontierPage | undefined {
    const row = this.next.get(siteId, maxLevel, now) as (FrontierPage & OrderState) | undefined;
    if (!row || !this.ordered) return row;
    const { cues, cash, inherit, dist, inlinks, ...page } = row;
    // Completed in place, not spread into a new object: V8 gave every spread copy a hidden class
    // of its own, ~300 bytes more for each site's next page (9 MB of a 30,000-site crawl's heap).
    page.level = this.queuedLevels.levelOf(page.id, page.level);
    page.state = { cues, cash, inherit, dist, inlinks };
    return page;
  }
}

/** A new run: every page that failed for now is due again (its attempts stay: net/failure-rule.ts). */
export function dueAgain(db: Db): void {
  db.prepare(`UPDATE pages SET retry_at = NULL WHERE retry_at IS NOT NULL`).run();
}

/** Queued pages that failed for now and wait, in all and per site id, and the soonest retry time (pages_retry answers it). */
export function waitingPages(db: Db): { total: number; bySite: Map<number, number>; earliest: number | null } {
  const rows = db.prepare(`SELECT site_id, count(*), min(retry_at) FROM pages WHERE retry_at IS NOT NULL AND status = 'queued' GROUP BY site_id`).raw().all() as [number, number, number | string][];
  const earliest = rows.reduce<number | null>((m, r) => Math.min(m ?? Infinity, Number(r[2])), null);
  return { total: rows.reduce((n, [, c]) => n + c, 0), bySite: new Map(rows.map(([site, n]) => [site, n])), earliest };
}

/** What a site has left queued: in all, beyond max-level, and the pages that wait, by origin (URL.origin) with the soonest retry. */
export interface QueuedLeft {
  queued: number;
  beyondLevel: number;
  /** its start page is still queued: a site Not Available with it is so for this run only (sites.ts reopenSites) */
  startQueued: boolean;
  waiting: Map<string, { pages: number; earliest: number }>;
}

/** Every site's queued pages by why they were not fetched (the crawl's summary accounts for each). */
export function queuedLeft(db: Db, maxLevel: number): Map<number, QueuedLeft> {
  const out = new Map<number, QueuedLeft>();
  const counts = db
    .prepare(`SELECT site_id, count(*), sum(CASE WHEN level > ? THEN 1 ELSE 0 END), sum(CASE WHEN level = 0 THEN 1 ELSE 0 END) FROM pages WHERE status = 'queued' GROUP BY site_id`)
    .raw()
    .all(maxLevel) as [number, number, number, number][];
  for (const [site, n, beyond, starts] of counts) out.set(site, { queued: Number(n), beyondLevel: Number(beyond), startQueued: Number(starts) > 0, waiting: new Map() });
  const waiting = db.prepare(`SELECT site_id, url, retry_at FROM pages WHERE retry_at IS NOT NULL AND status = 'queued' AND level <= ?`).raw().iterate(maxLevel) as Iterable<[number, string, number | string]>;
  for (const [site, url, at] of waiting) {
    const origin = new URL(url).origin;
    const w = out.get(site)!.waiting;
    const h = w.get(origin) ?? { pages: 0, earliest: Infinity };
    h.pages++;
    h.earliest = Math.min(h.earliest, Number(at));
    w.set(origin, h);
  }
  return out;
}
