import type { Db } from './db.js';

export type LinkKind = 'external' | 'internal' | 'bad';

const site = `coalesce(s.short, s.url)`;

/** Column lists and queries for each link table, as users see them in exports. */
const queries: Record<LinkKind, { columns: string[]; sql: string }> = {
  external: {
    columns: ['site_id', 'site', 'source_url', 'source_level', 'url', 'anchor_text', 'rel', 'tag'],
    sql: `SELECT e.site_id, ${site}, p.url, e.level, e.url, e.anchor, e.rel, e.tag
          FROM external_links e JOIN sites s ON s.id = e.site_id JOIN pages p ON p.id = e.page_id
          WHERE (@site IS NULL OR e.site_id = @site) ORDER BY e.id`,
  },
  internal: {
    columns: ['site_id', 'site', 'url', 'level', 'status', 'found_on_url'],
    sql: `SELECT p.site_id, ${site}, p.url, p.level, p.status, f.url
          FROM pages p JOIN sites s ON s.id = p.site_id LEFT JOIN pages f ON f.id = p.found_on
          WHERE (@site IS NULL OR p.site_id = @site) ORDER BY p.id`,
  },
  bad: {
    columns: ['site_id', 'site', 'source_url', 'raw_href', 'reason'],
    sql: `SELECT b.site_id, ${site}, p.url, b.raw, b.reason
          FROM bad_links b JOIN sites s ON s.id = b.site_id JOIN pages p ON p.id = b.page_id
          WHERE (@site IS NULL OR b.site_id = @site) ORDER BY b.id`,
  },
};

export function exportColumns(kind: LinkKind): string[] {
  return queries[kind].columns;
}

/** Stream the rows of one link table (arrays in exportColumns order); nothing is loaded whole. */
export function exportRows(db: Db, kind: LinkKind, siteId: number | null): IterableIterator<unknown[]> {
  return db.prepare(queries[kind].sql).raw().iterate({ site: siteId }) as IterableIterator<unknown[]>;
}
