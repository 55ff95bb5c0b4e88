import { openDb } from '../../src/db/db.js';
import { rows } from './read-db.js';

/**
 * A crawl's result as sets the user counts, so two stores (SQLite, PostgreSQL) or two runs compare:
 * pages by URL, status and level, links by page and target, edges; ids replaced by URLs.
 */
export function crawlTables(target: string) {
  const db = openDb(target, { readonly: true });
  const col = (sql: string) => (db.prepare(sql).raw().all() as unknown[][]).map((r) => r.join(' ')).sort();
  try {
    return {
      internal: col(`SELECT p.url, p.status, p.level, f.url FROM pages p LEFT JOIN pages f ON f.id = p.found_on`).map((r) => r.split(' ').slice(0, 3).join(' ')),
      external: col(`SELECT p.url, e.key, e.host, e.level, e.anchor FROM external_links e JOIN pages p ON p.id = e.page_id`),
      bad: col(`SELECT p.url, b.raw, b.reason FROM bad_links b JOIN pages p ON p.id = b.page_id`),
      edges: col(`SELECT s.url, d.url FROM edges e JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst`),
      fetchedTwice: col(`SELECT page_id FROM fetches GROUP BY page_id HAVING count(*) > 1`),
      pulls: db.prepare('SELECT count(*) FROM fetches').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

/** Rows in one order whatever the store's collation (PostgreSQL's text order is not SQLite's). */
const sorted = (db: string, sql: string) => rows<Record<string, unknown>>(db, sql).map((r) => JSON.stringify(Object.values(r))).sort();

/**
 * What a crawl stored, as plain rows that two databases (SQLite or PostgreSQL) can compare: pages
 * (with their levels and statuses), external links, bad links and edges, page ids replaced by keys.
 */
export function storedRows(db: string) {
  return {
    pages: sorted(db, 'SELECT site_id, key, url, level, status FROM pages'),
    external: sorted(db, 'SELECT e.site_id, p.key AS page, e.key, e.url, e.level, e.anchor, e.rel, e.tag FROM external_links e JOIN pages p ON p.id = e.page_id'),
    bad: sorted(db, 'SELECT b.site_id, p.key AS page, b.raw, b.reason FROM bad_links b JOIN pages p ON p.id = b.page_id'),
    edges: sorted(db, 'SELECT s.key AS src, d.key AS dst, e.anchor FROM edges e JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst'),
  };
}
