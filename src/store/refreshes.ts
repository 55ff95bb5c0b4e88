import type { Db } from './db.js';
import type { FrontierPage } from './frontier.js';
import type { Validators } from '../crawl/fetch-page.js';

/** What a refresh did with a page (refreshes.action; see refreshAction in src/crawl/refresh.ts). */
export type RefreshAction = 'keep' | 'replace' | 'gone' | 'retry';
export type RefreshLogAction = RefreshAction | 'skipped';

/** Statuses of the pages a refresh re-checks: the ones that were fetched and not redirected. */
export const REFRESHED_STATUSES = ['done', 'not-html', 'error'] as const;

/**
 * The refresh log (schema 10): which generation is under way, the next page it has not checked,
 * the validators in force for a page, and one row per page checked.
 */
export class RefreshLog {
  private s;

  constructor(private db: Db) {
    const statuses = REFRESHED_STATUSES.map((x) => `'${x}'`).join(', ');
    this.s = {
      open: db.prepare(`SELECT gen FROM refresh_runs WHERE finished_at IS NULL ORDER BY gen LIMIT 1`).pluck(),
      start: db.prepare(`INSERT INTO refresh_runs (gen, started_at) VALUES ((SELECT coalesce(max(gen), 0) + 1 FROM refresh_runs), ?)`),
      finish: db.prepare(`UPDATE refresh_runs SET finished_at = ? WHERE gen = ?`),
      // Page order (discovery order) so a resumed run goes on where the stopped one was.
      next: db.prepare(
        `SELECT p.id, p.site_id AS siteId, p.url, p.level FROM pages p
          WHERE p.status IN (${statuses}) AND p.id > ?
            AND NOT EXISTS (SELECT 1 FROM refreshes r WHERE r.gen = ? AND r.page_id = p.id)
          ORDER BY p.id LIMIT 1`,
      ),
      left: db.prepare(
        `SELECT count(*) FROM pages p WHERE p.status IN (${statuses})
            AND NOT EXISTS (SELECT 1 FROM refreshes r WHERE r.gen = ? AND r.page_id = p.id)`,
      ).pluck(),
      lastRefresh: db.prepare(`SELECT etag, last_modified AS lastModified FROM refreshes WHERE page_id = ? ORDER BY seq DESC LIMIT 1`),
      lastFetch: db.prepare(`SELECT etag, last_modified AS lastModified FROM fetches WHERE page_id = ? ORDER BY seq DESC LIMIT 1`),
      log: db.prepare(
        `INSERT INTO refreshes (gen, page_id, action, http_status, error, etag, last_modified, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  /** The generation under way, or a new one. */
  generation(): { gen: number; resumed: boolean } {
    const open = this.s.open.get() as number | undefined;
    if (open !== undefined) return { gen: open, resumed: true };
    this.s.start.run(new Date().toISOString());
    return { gen: this.s.open.get() as number, resumed: false };
  }

  /** The next page of generation `gen` not checked yet, after page id `after`. */
  next(gen: number, after: number): FrontierPage | undefined {
    return this.s.next.get(after, gen) as FrontierPage | undefined;
  }

  left(gen: number): number {
    return this.s.left.get(gen) as number;
  }

  finish(gen: number): void {
    this.s.finish.run(new Date().toISOString(), gen);
  }

  /** The validators of the page's last answer: its last refresh, else its last crawl fetch. */
  validators(pageId: number): Validators {
    const v = (this.s.lastRefresh.get(pageId) ?? this.s.lastFetch.get(pageId)) as Validators | undefined;
    return { etag: v?.etag ?? null, lastModified: v?.lastModified ?? null };
  }

  log(gen: number, pageId: number, action: RefreshLogAction, httpStatus: number | null, error: string | null, v: Validators): void {
    this.s.log.run(gen, pageId, action, httpStatus, error, v.etag, v.lastModified, new Date().toISOString());
  }
}
