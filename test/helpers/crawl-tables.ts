import { rows } from './read-db.js';

/**
 * What a crawl stored, as plain rows that two databases can compare: pages (with their levels and
 * statuses), external links, bad links and edges, page ids replaced by their keys.
 */
export function crawlTables(db: string) {
  return {
    pages: rows(db, 'SELECT site_id, key, url, level, status FROM pages ORDER BY site_id, key'),
    external: rows(db, `SELECT e.site_id, p.key AS page, e.key, e.url, e.level, e.anchor, e.rel, e.tag
      FROM external_links e JOIN pages p ON p.id = e.page_id ORDER BY e.site_id, p.key, e.key`),
    bad: rows(db, 'SELECT b.site_id, p.key AS page, b.raw, b.reason FROM bad_links b JOIN pages p ON p.id = b.page_id ORDER BY b.site_id, p.key, b.raw'),
    edges: rows(db, 'SELECT s.key AS src, d.key AS dst, e.anchor FROM edges e JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst ORDER BY s.key, d.key'),
  };
}
