import type { OrderState } from './frontier.js';
import type { Db } from '../db/db.js';

/** The priority of a queued page from what the order keeps with it (src/order). */
export type Prioritize = (siteId: number, url: string, anchor: string, state: OrderState) => number;

/**
 * Which queued pages of a site to score again: all that have a priority; those without one alone
 * (when a crawl starts or sitemaps queued pages: the others keep the priorities an uninterrupted
 * crawl would have given them, so a resume is exact); or those that carry one of these cues (what
 * a pull just taught the model).
 */
export type Rescore = 'all' | 'unscored' | { cues: readonly string[] };

/** Whether a queued page with these stored cues is among `which` (pages without stored cues always are). */
export function rescores(which: Rescore, priority: number | null, cues: string | null): boolean {
  if (which === 'unscored') return priority === null;
  if (priority === null) return false; // its turn is the 'unscored' pass
  if (which === 'all' || !cues) return true;
  const padded = ` ${cues} `;
  return which.cues.some((c) => padded.includes(` ${c} `));
}

/** What the value order scores a queued page by: the link that queued it, which never changes. */
export interface FirstLink {
  url: string;
  anchor: string;
  cues: string;
}

/**
 * The first links of queued pages, kept in memory so that scoring a site's queue again reads only
 * the covering index pages_best (ids, priorities, levels), not a wide row a page: the reads were
 * half of the value order's re-scoring cost. Bounded: past MAX entries a page's link is read from
 * its row when needed.
 */
export class FirstLinks {
  static readonly MAX = 200_000;
  private links = new Map<number, FirstLink>();
  private read: ReturnType<Db['prepare']> | null = null;

  constructor(private db: Db) {}

  add(id: number, link: FirstLink): void {
    if (this.links.size < FirstLinks.MAX) this.links.set(id, link);
  }

  /** The page left the queue (pulled). */
  drop(id: number): void {
    this.links.delete(id);
  }

  get(id: number): FirstLink {
    const known = this.links.get(id);
    if (known) return known;
    this.read ??= this.db.prepare(`SELECT url, coalesce(anchor, '') AS anchor, coalesce(cues, '') AS cues FROM pages WHERE id = ?`);
    const link = this.read.get(id) as FirstLink;
    this.add(id, link);
    return link;
  }
}

const noState = { cash: 0, inherit: 0, dist: 0, inlinks: 0 };

/**
 * Score a site's queued pages again with what the crawl has learned since they were found
 * (ordered crawls); start pages come first. A priority that comes out the same is not written.
 * `firstLinks`: the order scores a page by its first link alone (the value order), so the rows
 * need not be read.
 */
export function rescoreQueued(db: Db, siteId: number, prioritize: Prioritize, which: Rescore = 'all', firstLinks?: FirstLinks): void {
  const set = db.prepare('UPDATE pages SET priority = ? WHERE id = ?');
  if (firstLinks && which !== 'unscored') {
    const rows = db
      .prepare(`SELECT id, priority, level FROM pages WHERE site_id = ? AND status = 'queued' AND priority IS NOT NULL`)
      .all(siteId) as { id: number; priority: number; level: number }[];
    db.transaction(() => {
      for (const { id, priority, level } of rows) {
        if (level === 0) continue; // MAX_VALUE already
        const { url, anchor, cues } = firstLinks.get(id);
        if (!rescores(which, priority, cues)) continue;
        const p = prioritize(siteId, url, anchor, { ...noState, cues });
        if (p !== priority) set.run(p, id); // most keep theirs (link-value.ts relativeValue): no write
      }
    })();
    return;
  }
  const rows = db
    .prepare(
      `SELECT id, url, anchor, level, priority, coalesce(cues, '') AS cues, coalesce(cash, CASE WHEN level = 0 THEN 1 ELSE 0 END) AS cash,
         coalesce(inherit, 0) AS inherit, coalesce(dist, 0) AS dist, coalesce(inlinks, 0) AS inlinks
       FROM pages WHERE site_id = ? AND status = 'queued'`,
    )
    .all(siteId) as ({ id: number; url: string; anchor: string | null; level: number; priority: number | null } & OrderState)[];
  db.transaction(() => {
    for (const { id, url, anchor, level, priority, ...state } of rows) {
      if (!rescores(which, priority, state.cues)) continue;
      const p = level === 0 ? Number.MAX_VALUE : prioritize(siteId, url, anchor ?? '', state);
      if (p !== priority) set.run(p, id);
    }
  })();
}

/** The site's queued pages (pages_frontier counts them). */
export function queuedPages(db: Db, siteId: number): number {
  return db.prepare(`SELECT count(*) FROM pages WHERE site_id = ? AND status = 'queued'`).pluck().get(siteId) as number;
}
