import type { Prioritize, Rescore } from '../schedule/links/rescore.js';
import type { OrderState } from '../schedule/queued-page.js';
import type { Db } from '../db/db.js';
import { textPosition } from '../db/dialect.js';

/**
 * Score a site's queued pages again with what the crawl has learned since they were found
 * (ordered crawls); start pages come first. A priority that comes out the same is not written.
 * The pages are those `rescores` picks, picked in SQL: a pull that paid selects a few hundred of
 * a queue of thousands, and the others are not read out.
 */
export function rescoreQueued(db: Db, siteId: number, prioritize: Prioritize, which: Rescore = 'all'): void {
  const cues = typeof which === 'object' ? which.cues.map((c) => ` ${c} `) : [];
  const any = cues.map(() => `${textPosition(db, "' ' || cues || ' '", '?')} > 0`).join(' OR ') || 'FALSE';
  const above = typeof which === 'object' && which.above !== undefined ? [which.above] : [];
  const only =
    which === 'all' ? 'AND priority IS NOT NULL'
    : which === 'unscored' ? 'AND priority IS NULL'
    : `AND priority IS NOT NULL ${above.length ? 'AND priority > ?' : ''} AND cues IS NOT NULL AND (${any})`;
  // In chunks along pages_frontier: a site's queue of 100,000 read whole held 90 MB more.
  const read = db.prepare(
    `SELECT id, url, anchor, level, priority, coalesce(cues, '') AS cues, coalesce(cash, CASE WHEN level = 0 THEN 1 ELSE 0 END) AS cash,
       coalesce(inherit, 0) AS inherit, coalesce(dist, 0) AS dist, coalesce(inlinks, 0) AS inlinks
     FROM pages WHERE site_id = ? AND status = 'queued' AND (level, id) > (?, ?) ${only} ORDER BY level, id LIMIT ${RESCORE_CHUNK}`,
  );
  const set = db.prepare('UPDATE pages SET priority = ? WHERE id = ?');
  const score = db.transaction((rows: ({ id: number; url: string; anchor: string | null; level: number; priority: number | null } & OrderState)[]) => {
    for (const { id, url, anchor, level, priority, ...state } of rows) {
      const p = level === 0 ? Number.MAX_VALUE : prioritize(siteId, url, anchor ?? '', state);
      if (p !== priority) set.run(p, id); // most keep theirs (link-value.ts relativeValue): no write
    }
  });
  for (let after = [-1, 0]; ; ) {
    const rows = read.all(siteId, after[0], after[1], ...above, ...cues) as Parameters<typeof score>[0];
    score(rows);
    if (rows.length < RESCORE_CHUNK) return;
    after = [rows.at(-1)!.level, rows.at(-1)!.id];
  }
}

const RESCORE_CHUNK = 2000;

/** The site's queued pages, counted up to `atMost` (pages_frontier counts them). */
export function queuedPages(db: Db, siteId: number, atMost = Infinity): number {
  if (atMost === Infinity) return db.prepare(`SELECT count(*) FROM pages WHERE site_id = ? AND status = 'queued'`).pluck().get(siteId) as number;
  return db.prepare(`SELECT count(*) FROM (SELECT 1 FROM pages WHERE site_id = ? AND status = 'queued' LIMIT ?) AS q`).pluck().get(siteId, atMost) as number;
}
