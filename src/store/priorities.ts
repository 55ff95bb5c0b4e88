import type { Prioritize, Rescore } from '../schedule/links/rescore.js';
import type { OrderState } from '../schedule/queued-page.js';
import type { Db, Statement } from '../db/db.js';
import { inJsonIds, textPosition } from '../db/dialect.js';

/**
 * Score a site's queued pages again with what the crawl has learned since they were found
 * (ordered crawls); start pages come first. A priority that comes out the same is not written.
 * The pages are those `rescores` picks, picked in SQL: a pull that paid selects a few hundred of
 * a queue of thousands, and the others are not read out.
 */
export function rescoreQueued(db: Db, siteId: number, prioritize: Prioritize, which: Rescore = 'all'): void {
  const cues = typeof which === 'object' ? which.cues.map((c) => ` ${c} `) : [];
  const above = typeof which === 'object' && which.above !== undefined ? [which.above] : [];
  const { read, score } = statements(db, which === 'all' || which === 'unscored' ? which : { cues: cues.length, above: above.length > 0 });
  for (let after = [-1, 0]; ; ) {
    const rows = read.all(siteId, after[0], after[1], ...above, ...cues) as Row[];
    score(rows, siteId, prioritize);
    if (rows.length < RESCORE_CHUNK) return;
    after = [rows.at(-1)![1], rows.at(-1)![0]];
  }
}

/** id, level, priority, cues ('' for none), and the url and anchor only for a page without cues (its cues are made from them). */
type Row = [number, number, number | null, string, string | null, string | null, number, number, number, number];

/**
 * The pass's two statements, prepared once per database and kind of pass (a pass runs every few
 * pulls of a site). A page's url and anchor are read only when it has no stored cues: a page
 * queued with cues is scored from them alone.
 */
function statements(db: Db, kind: 'all' | 'unscored' | { cues: number; above: boolean }): Pass {
  const key = typeof kind === 'string' ? kind : `${kind.cues}${kind.above ? '>' : ''}`;
  let byKind = prepared.get(db);
  if (!byKind) prepared.set(db, (byKind = new Map()));
  let st = byKind.get(key);
  if (st) return st;
  const any = typeof kind === 'string' ? '' : Array.from({ length: kind.cues }, () => `${textPosition(db, "' ' || cues || ' '", '?')} > 0`).join(' OR ') || 'FALSE';
  const only =
    kind === 'all' ? 'AND priority IS NOT NULL'
    : kind === 'unscored' ? 'AND priority IS NULL'
    : `AND priority IS NOT NULL ${kind.above ? 'AND priority > ?' : ''} AND cues IS NOT NULL AND (${any})`;
  // In chunks along pages_frontier: a site's queue of 100,000 read whole held 90 MB more.
  const read = db.prepare(
    `SELECT id, level, priority, coalesce(cues, '') AS cues,
       CASE WHEN coalesce(cues, '') = '' THEN url END AS url, CASE WHEN coalesce(cues, '') = '' THEN anchor END AS anchor,
       coalesce(cash, CASE WHEN level = 0 THEN 1 ELSE 0 END) AS cash, coalesce(inherit, 0) AS inherit, coalesce(dist, 0) AS dist, coalesce(inlinks, 0) AS inlinks
     FROM pages WHERE site_id = ? AND status = 'queued' AND (level, id) > (?, ?) ${only} ORDER BY level, id LIMIT ${RESCORE_CHUNK}`,
  ).raw();
  const setOne = db.prepare('UPDATE pages SET priority = ? WHERE id = ?');
  const setMany = db.prepare(`UPDATE pages SET priority = ? WHERE ${inJsonIds(db, 'id', '?')}`);
  // one wrapper per database and kind: made at each call, it cost a tenth of the start's 30,000 passes
  const score = db.transaction((rows: Row[], siteId: number, prioritize: Prioritize) => {
    const moved = new Map<number, number[]>(); // new priority -> the pages that take it
    for (const [id, level, priority, stored, url, anchor, cash, inherit, dist, inlinks] of rows) {
      const p = level === 0 ? Number.MAX_VALUE : prioritize(siteId, url ?? '', anchor ?? '', { cues: stored, cash, inherit, dist, inlinks });
      if (p === priority) continue; // most keep theirs (link-value.ts relativeValue): no write
      const ids = moved.get(p);
      if (ids) ids.push(id);
      else moved.set(p, [id]);
    }
    // The value order's priorities are a few quarter octaves: a statement per priority writes its
    // pages at half the cost of one per page.
    for (const [p, ids] of moved) {
      if (ids.length === 1) setOne.run(p, ids[0]);
      else setMany.run(p, JSON.stringify(ids));
    }
  });
  st = { read, score };
  byKind.set(key, st);
  return st;
}

/** A pass's read, and what scores and writes the rows read, in a transaction. */
interface Pass {
  read: Statement;
  score: (rows: Row[], siteId: number, prioritize: Prioritize) => void;
}

const prepared = new WeakMap<Db, Map<string, Pass>>();

const RESCORE_CHUNK = 2000;

/** The site's queued pages, counted up to `atMost` (pages_frontier counts them). */
export function queuedPages(db: Db, siteId: number, atMost = Infinity): number {
  if (atMost === Infinity) return db.prepare(`SELECT count(*) FROM pages WHERE site_id = ? AND status = 'queued'`).pluck().get(siteId) as number;
  return db.prepare(`SELECT count(*) FROM (SELECT 1 FROM pages WHERE site_id = ? AND status = 'queued' LIMIT ?) AS q`).pluck().get(siteId, atMost) as number;
}
