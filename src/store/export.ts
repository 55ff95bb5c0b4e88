import type { Db } from '../db/db.js';
import { byStore, callsJavaScript, greatest, type DbKind } from '../db/dialect.js';
import type { LinkFilter, LinkKind } from './link-filter.js';
import { registerUrlFunctions } from '../db/url-functions.js';
import { hostMatches, urlHost } from '../url/host.js';

export type { LinkKind } from './link-filter.js';

const site = `coalesce(s.short, s.url)`;

/**
 * When a live link was last seen: when its page was last read, or later confirmed
 * unchanged by a refresh. A gone link keeps the time stored when it went.
 */
const pageSeen = (db: DbKind, page: string, found: string) =>
  greatest(
    db,
    `coalesce(${page}.fetched_at, ${found})`,
    `coalesce((SELECT r.at FROM refreshes r WHERE r.page_id = ${page}.id AND r.action = 'keep' AND r.http_status < 400 ORDER BY r.seq DESC LIMIT 1), '')`,
  );
const seen = (db: DbKind, link: string, page: string, found: string) => `coalesce(${link}.last_seen, ${pageSeen(db, page, found)})`;

/**
 * One link table as users see it (in `links`, `links delete` and exports): its columns, the
 * query that produces them, and the expressions the filters apply to.
 */
export interface LinkTable {
  columns: string[];
  select: string;
  from: string;
  /** the row id in the link table, for deletes */
  id: string;
  /** the identity stored in a tombstone: pages.key, external_links.key, bad_links.raw */
  key: string;
  fields: { site: string; url: string; text: string[]; level: string; found: string; gone: string };
  /** rows `links delete` may remove (see links.ts) */
  deletable: string;
}

// greatest(): both arguments are never NULL here (SQLite's max and PostgreSQL's greatest differ on NULL).
const tables = (db: DbKind): Record<LinkKind, LinkTable> => ({
  external: {
    columns: ['site_id', 'site', 'source_url', 'source_level', 'url', 'anchor_text', 'rel', 'tag', 'found_at', 'last_seen', 'gone_at'],
    select: `e.site_id, ${site}, p.url, e.level, e.url, e.anchor, e.rel, e.tag, e.found_at, ${seen(db, 'e', 'p', 'e.found_at')}, e.gone_at`,
    from: `external_links e JOIN sites s ON s.id = e.site_id JOIN pages p ON p.id = e.page_id`,
    id: 'e.id',
    key: 'e.key',
    fields: { site: 'e.site_id', url: 'e.url', text: ['e.url', 'e.anchor'], level: 'e.level', found: 'e.found_at', gone: 'e.gone_at' },
    deletable: 'true',
  },
  internal: {
    columns: ['site_id', 'site', 'url', 'level', 'status', 'found_on_url', 'found_at', 'last_seen', 'gone_at'],
    // A start page was "found" when its site was added. An internal link is gone when its page answered 404/410.
    select: `p.site_id, ${site}, p.url, p.level, p.status, f.url, coalesce(p.found_at, s.added_at), ${pageSeen(db, 'p', 'coalesce(p.found_at, s.added_at)')}, p.gone_at`,
    from: `pages p JOIN sites s ON s.id = p.site_id LEFT JOIN pages f ON f.id = p.found_on`,
    id: 'p.id',
    key: 'p.key',
    fields: { site: 'p.site_id', url: 'p.url', text: ['p.url'], level: 'p.level', found: 'coalesce(p.found_at, s.added_at)', gone: 'p.gone_at' },
    deletable: `p.status = 'queued' AND p.level > 0`,
  },
  bad: {
    columns: ['site_id', 'site', 'source_url', 'raw_href', 'reason', 'found_at', 'last_seen', 'gone_at'],
    select: `b.site_id, ${site}, p.url, b.raw, b.reason, b.found_at, ${seen(db, 'b', 'p', 'b.found_at')}, b.gone_at`,
    from: `bad_links b JOIN sites s ON s.id = b.site_id JOIN pages p ON p.id = b.page_id`,
    id: 'b.id',
    key: 'b.raw',
    fields: { site: 'b.site_id', url: 'b.raw', text: ['b.raw'], level: 'p.level', found: 'b.found_at', gone: 'b.gone_at' },
    deletable: 'true',
  },
});

export const linkTables: Record<LinkKind, LinkTable> = tables('sqlite');
const pgLinkTables = tables('pg');

/** The link tables in this store's SQL. */
export function linkTablesOf(db: Db): Record<LinkKind, LinkTable> {
  return byStore(db, { sqlite: linkTables, pg: pgLinkTables });
}

/**
 * The --host and --grep conditions as a JavaScript test, for PostgreSQL: it has no beebot_host_in
 * and beebot_icontains, and its lower() (C locale) folds only ASCII, while anchor texts are often
 * Cyrillic. The test reads the values of `columns`, selected after the row's own columns.
 */
export interface RowTest {
  columns: string[];
  test(values: unknown[]): boolean;
}

function rowTest(kind: LinkKind, f: LinkFilter): RowTest | null {
  if (f.host === null && f.grep === null) return null;
  const t = linkTables[kind].fields;
  const host = f.host;
  const grep = f.grep === null ? null : f.grep.toLowerCase();
  return {
    columns: [t.url, ...t.text],
    test([url, ...texts]) {
      if (host !== null && !(typeof url === 'string' && hostMatches(urlHost(url), host))) return false;
      return grep === null || texts.some((x) => typeof x === 'string' && x.toLowerCase().includes(grep));
    },
  };
}

/** The WHERE clause for a filter (only the conditions in use, so an unfiltered export is a plain scan). */
export function filterWhere(
  db: Db, kind: LinkKind, f: LinkFilter, opts: { deletableOnly?: boolean } = {},
): { where: string; params: Record<string, unknown>; rowTest: RowTest | null } {
  const t = linkTables[kind].fields;
  const inJs = callsJavaScript(db) ? null : rowTest(kind, f);
  const conds: string[] = opts.deletableOnly ? [linkTables[kind].deletable] : [];
  // The links a site has now, or (--gone) the ones it had: never both, so counts stay what users count.
  conds.push(`${t.gone} ${f.gone ? 'IS NOT NULL' : 'IS NULL'}`);
  const params: Record<string, unknown> = {};
  if (f.siteId !== null) {
    conds.push(`${t.site} = @site`);
    params.site = f.siteId;
  }
  if (!inJs && (f.host !== null || f.grep !== null)) registerUrlFunctions(db);
  if (!inJs && f.host !== null) {
    conds.push(`beebot_host_in(${t.url}, @host)`);
    params.host = f.host;
  }
  if (!inJs && f.grep !== null) {
    conds.push(`(${t.text.map((x) => `beebot_icontains(${x}, @grep)`).join(' OR ')})`);
    params.grep = f.grep;
  }
  if (f.level !== null) {
    conds.push(`${t.level} = @level`);
    params.level = f.level;
  }
  if (f.since !== null) {
    conds.push(`${t.found} >= @since`);
    params.since = f.since;
  }
  return { where: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params, rowTest: inJs };
}

export function exportColumns(kind: LinkKind): string[] {
  return linkTables[kind].columns;
}

/**
 * Stream the rows of one link table (arrays in exportColumns order), oldest first; nothing is
 * loaded whole, so a million-row export runs in bounded memory.
 */
export function exportRows(
  db: Db, kind: LinkKind, filter: LinkFilter, opts: { limit?: number | null; deletableOnly?: boolean } = {},
): IterableIterator<unknown[]> {
  const t = linkTablesOf(db)[kind];
  const { where, params, rowTest } = filterWhere(db, kind, filter, opts);
  const limit = opts.limit ?? null;
  if (rowTest) return testedRows(db, `SELECT ${t.select}, ${rowTest.columns.join(', ')} FROM ${t.from} ${where} ORDER BY ${t.id}`, params, t.columns.length, rowTest, limit);
  const sql = `SELECT ${t.select} FROM ${t.from} ${where} ORDER BY ${t.id}${limit !== null ? ` LIMIT ${Math.floor(limit)}` : ''}`;
  return db.prepare(sql).raw().iterate(params) as IterableIterator<unknown[]>;
}

/** The rows passing a RowTest, without its columns (the first `width` are the row's own). */
function* testedRows(db: Db, sql: string, params: Record<string, unknown>, width: number, rowTest: RowTest, limit: number | null): IterableIterator<unknown[]> {
  if (limit !== null && limit <= 0) return;
  let n = 0;
  for (const row of db.prepare(sql).raw().iterate(params) as IterableIterator<unknown[]>) {
    if (!rowTest.test(row.slice(width))) continue;
    yield row.slice(0, width);
    if (limit !== null && ++n >= Math.floor(limit)) return;
  }
}

/** The ids (of the link table) of the rows a filter selects. */
export function matchingIds(db: Db, kind: LinkKind, filter: LinkFilter, opts: { deletableOnly?: boolean } = {}): number[] {
  const t = linkTablesOf(db)[kind];
  const { where, params, rowTest } = filterWhere(db, kind, filter, opts);
  const rows = db.prepare(`SELECT ${t.id}${rowTest ? ', ' + rowTest.columns.join(', ') : ''} FROM ${t.from} ${where}`).raw().iterate(params) as IterableIterator<unknown[]>;
  const ids: number[] = [];
  for (const row of rows) if (!rowTest || rowTest.test(row.slice(1))) ids.push(row[0] as number);
  return ids;
}

/** How many rows a filter selects. */
export function countRows(db: Db, kind: LinkKind, filter: LinkFilter, opts: { deletableOnly?: boolean } = {}): number {
  const t = linkTablesOf(db)[kind];
  const { where, params, rowTest } = filterWhere(db, kind, filter, opts);
  if (rowTest) return matchingIds(db, kind, filter, opts).length;
  return db.prepare(`SELECT count(*) FROM ${t.from} ${where}`).pluck().get(params) as number;
}
