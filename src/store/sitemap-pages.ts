import type { Db } from '../db/db.js';
import { onConflictIgnore, typed } from '../db/dialect.js';
import type { SitemapFound } from '../pull/sitemap-found.js';
import { fingerprint } from '../url/key-hash.js';

/**
 * A site's pages found in its sitemaps (src/net/sitemaps.ts), as the site's scope classified
 * them. A page found only there is queued at SITEMAP_LEVEL with no page it was found on, and
 * names its sitemap; a page the crawl already knows keeps its level and gets the sitemap's name.
 */
export const SITEMAP_LEVEL = 1;

export function sitemapStatements(db: Db) {
  const p = (name: string, type: string) => typed(db, `@${name}`, type);
  return {
    seen: db.prepare(`SELECT id FROM pages WHERE site_id = ? AND dir = ? AND fp = ?`).pluck(),
    insert: db.prepare(
      `INSERT INTO pages (site_id, key, dir, fp, url, level, status, note, found_at, sitemap)
       SELECT ${p('site', 'bigint')}, ${p('key', 'text')}, ${p('dir', 'bigint')}, ${p('fp', 'bigint')}, ${p('url', 'text')}, ${SITEMAP_LEVEL},
              ${p('status', 'text')}, ${p('note', 'text')}, ${p('at', 'text')}, ${p('sitemap', 'text')}
       WHERE NOT EXISTS (SELECT 1 FROM deleted_links d WHERE d.site_id = @site AND d.kind = 'internal' AND d.key = @key)${onConflictIgnore(db)}`,
    ),
    name: db.prepare(`UPDATE pages SET sitemap = ? WHERE id = ? AND sitemap IS NULL`),
    read: db.prepare(`UPDATE sites SET sitemaps_read = ?, sitemap_files = ?, sitemap_problems = ? WHERE id = ?`),
  };
}
export type SitemapStatements = ReturnType<typeof sitemapStatements>;

/**
 * Store a site's sitemap pages and mark its sitemaps read (unless a file failed for now), with the files read and the problems;
 * returns how many pages were new. Run it in a transaction.
 */
export function storeSitemapPages(st: SitemapStatements, siteId: number, found: SitemapFound, at: string): number {
  const { pages } = found;
  let added = 0;
  for (const pg of pages) {
    const { dir, fp } = fingerprint(pg.key);
    const id = st.seen.get(siteId, dir, fp) as number | undefined;
    if (id !== undefined) {
      st.name.run(pg.sitemap, id);
      continue;
    }
    const row = { site: siteId, key: pg.key, dir, fp, url: pg.url, status: pg.hold?.status ?? 'queued', note: pg.hold?.note ?? null, at, sitemap: pg.sitemap };
    added += st.insert.run(row).changes;
  }
  st.read.run(found.again ? null : at, found.files, found.problems.length ? JSON.stringify(found.problems) : null, siteId);
  return added;
}
