import { rows } from './read-db.js';

/** Rows in one order whatever the store's collation (PostgreSQL's text order is not SQLite's). */
const sorted = (db: string, sql: string) => rows<Record<string, unknown>>(db, sql).map((r) => JSON.stringify(Object.values(r))).sort();

/**
 * What a crawl stored, as plain rows that two databases (SQLite or PostgreSQL) can compare: pages
 * (with their levels and statuses), external links, bad links and edges, page ids replaced by keys.
 */
export function crawlTables(db: string) {
  return {
    pages: sorted(db, 'SELECT site_id, key, url, level, status FROM pages'),
    external: sorted(db, 'SELECT e.site_id, p.key AS page, e.key, e.url, e.level, e.anchor, e.rel, e.tag FROM external_links e JOIN pages p ON p.id = e.page_id'),
    bad: sorted(db, 'SELECT b.site_id, p.key AS page, b.raw, b.reason FROM bad_links b JOIN pages p ON p.id = b.page_id'),
    edges: sorted(db, 'SELECT s.key AS src, d.key AS dst, e.anchor FROM edges e JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst'),
  };
}
