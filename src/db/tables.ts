import { textPosition, type DbKind } from './dialect.js';

/**
 * The beebot database layout, once, for both stores: every table with its columns (a portable
 * type each), keys, checks and indexes, as they stand after the last migration. SQLite's fresh
 * databases (sqlite-schema.ts) and PostgreSQL's (pg/schema.ts) are made from it; each dialect
 * maps the types and adds its quirks there. SQLite databases of older versions still climb the
 * migrations (migrations.ts), the history of how this shape came about; test/db/schema.test.ts
 * checks that climbing them ends here, on both stores.
 *
 * `since` is the schema version that added a table, column or index (1 when absent): PostgreSQL
 * stores of older versions are upgraded by the columns and indexes added after theirs.
 * What each column means is said where it was added (migrations.ts).
 */
export const SCHEMA_VERSION = 19;

export type ColumnType = 'integer' | 'real' | 'text';

export interface Column {
  name: string;
  type: ColumnType;
  notNull?: boolean;
  /** an SQL literal both stores read alike */
  default?: string;
  /** the values allowed: CHECK (name IN (…)) */
  oneOf?: readonly string[];
  /** 'table(column)', with what a deleted target does to this row */
  references?: string;
  onDelete?: 'CASCADE' | 'SET NULL';
  /** the table's one-column primary key: `assigned` by the store on insert (a rowid, a serial), or `given` by beebot */
  primary?: 'assigned' | 'given';
  since?: number;
}

export interface Index {
  name: string;
  /** column names, each optionally followed by DESC */
  columns: readonly string[];
  unique?: boolean;
  /** a partial index's predicate: a function where the stores spell it differently */
  where?: string | ((kind: DbKind) => string);
  since?: number;
}

export interface Table {
  name: string;
  columns: readonly Column[];
  /** a key of several columns (a one-column key is the column's `primary`) */
  primaryKey?: readonly string[];
  unique?: readonly (readonly string[])[];
  indexes?: readonly Index[];
  /** keyed by its primary key alone, no row number beside it (SQLite: WITHOUT ROWID) */
  keyOnly?: boolean;
  /** a full-text index of these text columns, one row per row of `of` (SQLite: FTS5, keyed by rowid) */
  textSearch?: { of: string; key: string };
  since?: number;
}

type Options = Omit<Column, 'name' | 'type'>;
const int = (name: string, o: Options = {}): Column => ({ name, type: 'integer', ...o });
const real = (name: string, o: Options = {}): Column => ({ name, type: 'real', ...o });
const text = (name: string, o: Options = {}): Column => ({ name, type: 'text', ...o });

const NN = { notNull: true } as const;
const rowid = { primary: 'assigned' } as const;
const ofSite = { notNull: true, references: 'sites(id)', onDelete: 'CASCADE' } as const;
const ofPage = { notNull: true, references: 'pages(id)', onDelete: 'CASCADE' } as const;
const zero = { notNull: true, default: '0' } as const;
const notGone = (column: string): string => `${column} IS NOT NULL`;

/** In an order that satisfies the foreign keys: a table points only at tables before it (and pages at itself). */
export const tables: readonly Table[] = [
  { name: 'settings', columns: [text('key', { primary: 'given' }), text('value', NN)] },
  {
    name: 'sites',
    columns: [
      int('id', rowid), text('url', NN), text('name'), text('short'), text('grp'), text('unavailable'),
      int('pulls', zero), int('reward_sum', zero), int('reward_max', zero), int('deepest'), text('added_at', NN),
      text('scope', { oneOf: ['host', 'domain', 'prefix'], since: 14 }), text('include', { since: 14 }), text('exclude', { since: 14 }),
      text('sitemaps', { oneOf: ['yes', 'no'], since: 14 }), text('sitemaps_read', { since: 14 }),
      int('failures', { ...zero, since: 15 }), int('unavailable_at', { since: 15 }),
      int('sitemap_files', { since: 17 }), text('sitemap_problems', { since: 17 }),
    ],
  },
  {
    name: 'pages',
    columns: [
      int('id', rowid), int('site_id', ofSite), text('key', NN), int('dir', { ...NN, since: 4 }), int('fp', { ...NN, since: 4 }),
      text('url', NN), int('level', NN), int('found_on', { references: 'pages(id)', onDelete: 'SET NULL' }),
      text('status', { notNull: true, default: "'queued'" }), text('found_at', { since: 2 }), text('note', { since: 3 }),
      real('priority', { since: 6 }), text('anchor', { since: 6 }),
      text('cues', { since: 7 }), real('cash', { since: 7 }), real('inherit', { since: 7 }), real('dist', { since: 7 }),
      int('inlinks', { since: 7 }), real('relevance', { since: 7 }), text('terms', { since: 7 }),
      text('anchors', { since: 9 }),
      int('fingerprint', { since: 11 }), int('text_size', { since: 11 }), int('bytes', { since: 11 }), text('fetched_at', { since: 11 }),
      text('gone_at', { since: 11 }), real('scent', { since: 11 }),
      text('sitemap', { since: 14 }),
      int('attempts', { ...zero, since: 15 }), int('first_failed_at', { since: 15 }), int('retry_at', { since: 15 }),
    ],
    indexes: [
      { name: 'pages_seen', columns: ['site_id', 'dir', 'fp', 'level'], since: 4 },
      { name: 'pages_frontier', columns: ['site_id', 'status', 'level', 'id'] },
      // the planner uses a partial index only for queries that repeat its predicate, spelled the store's way
      { name: 'pages_query', columns: ['site_id', 'key'], where: (kind) => `${textPosition(kind, 'key', "'?'")} > 0`, since: 4 },
      { name: 'pages_best', columns: ['site_id', 'priority DESC', 'level', 'id'], where: "status = 'queued' AND priority IS NOT NULL", since: 6 },
      { name: 'pages_retry', columns: ['site_id', 'retry_at'], where: notGone('retry_at'), since: 15 },
    ],
  },
  // A queued page found again nearer the start page, in an ordered crawl: the level it moves up to
  // when it is fetched (store/queued-levels.ts). Kept beside the page, as moving the page's own
  // level moves three index entries, 17 times a page in a value-ordered crawl.
  {
    name: 'queued_levels',
    columns: [int('page_id', { primary: 'given', references: 'pages(id)', onDelete: 'CASCADE' }), int('level', NN), int('found_on')],
    since: 19,
  },
  {
    name: 'fetches',
    columns: [
      int('seq', rowid), int('site_id', ofSite), int('page_id', ofPage), text('final_url'), int('http_status'), text('content_type'),
      int('bytes'), text('encoding'), text('encoding_source'), text('error'), int('reward', NN), int('ms', NN), text('at', NN),
      int('retries', { ...zero, since: 3 }), text('note', { since: 3 }),
      int('reward_urls', { since: 5 }), int('reward_hosts', { since: 5 }), int('reward_pairs', { since: 5 }),
      int('content_length', { since: 8 }), text('last_modified', { since: 8 }), text('expires', { since: 8 }), text('etag', { since: 8 }),
      text('cache_control', { since: 8 }), text('content_language', { since: 8 }), text('title', { since: 8 }),
    ],
    indexes: [
      { name: 'fetches_site', columns: ['site_id', 'seq'] },
      { name: 'fetches_page', columns: ['page_id', 'seq'], since: 11 },
    ],
  },
  {
    name: 'hops',
    columns: [int('fetch_seq', { notNull: true, references: 'fetches(seq)', onDelete: 'CASCADE' }), int('n', NN), text('url', NN), int('status'), text('location')],
    primaryKey: ['fetch_seq', 'n'],
    keyOnly: true,
  },
  {
    name: 'external_links',
    columns: [
      int('id', rowid), int('site_id', ofSite), int('page_id', ofPage), text('key', NN), text('url', NN), int('level', NN),
      text('anchor', NN), text('rel', NN), text('tag', NN), text('found_at', { since: 2 }),
      text('host', { notNull: true, default: "''", since: 5 }), text('last_seen', { since: 11 }), text('gone_at', { since: 11 }),
    ],
    unique: [['page_id', 'key']],
    indexes: [
      { name: 'external_site', columns: ['site_id', 'id'] },
      { name: 'external_gone', columns: ['gone_at'], where: notGone('gone_at'), since: 11 },
    ],
  },
  {
    name: 'bad_links',
    columns: [
      int('id', rowid), int('site_id', ofSite), int('page_id', ofPage), text('raw', NN), text('reason', NN),
      text('found_at', { since: 2 }), text('last_seen', { since: 11 }), text('gone_at', { since: 11 }),
    ],
    unique: [['page_id', 'raw']],
    indexes: [
      { name: 'bad_site', columns: ['site_id', 'id'] },
      { name: 'bad_gone', columns: ['gone_at'], where: notGone('gone_at'), since: 11 },
    ],
  },
  {
    name: 'deleted_links',
    columns: [int('site_id', ofSite), text('kind', { notNull: true, oneOf: ['internal', 'external', 'bad'] }), text('key', NN), text('deleted_at', NN)],
    primaryKey: ['site_id', 'kind', 'key'],
    keyOnly: true,
    since: 2,
  },
  {
    name: 'hosts',
    columns: [
      text('host', { primary: 'given' }), int('delay_ms', NN), int('crawl_delay_ms'), int('clamped', zero), text('robots'),
      int('failures', zero), text('paused_until'), text('updated_at', NN),
    ],
    keyOnly: true,
    since: 3,
  },
  // no foreign keys and no index on dst: each would cost the crawl a lookup per link
  {
    name: 'edges',
    columns: [int('src', NN), int('dst', NN), text('anchor'), text('found_at', { since: 11 }), text('last_seen', { since: 11 }), text('gone_at', { since: 11 })],
    primaryKey: ['src', 'dst'],
    keyOnly: true,
    since: 8,
  },
  {
    name: 'url_checks',
    columns: [text('key', { primary: 'given' }), text('url', NN), text('method', NN), int('status'), text('final_url'), text('error'), text('checked_at', NN)],
    keyOnly: true,
    since: 8,
  },
  {
    name: 'param_rules',
    columns: [
      int('site_id', ofSite), text('path', NN), text('param', NN),
      text('kind', { notNull: true, oneOf: ['required', 'required-from', 'optional', 'dropped'] }), text('arg'),
    ],
    primaryKey: ['site_id', 'path', 'param'],
    keyOnly: true,
    since: 9,
  },
  // weighed in this order (search/weights.ts): title first
  { name: 'page_text', columns: [text('title'), text('anchors'), text('headings'), text('body')], textSearch: { of: 'pages', key: 'page_id' }, since: 9 },
  {
    name: 'refresh_runs',
    columns: [
      int('gen', { primary: 'given' }), text('started_at', NN), text('finished_at'),
      text('kind', { notNull: true, default: "'all'", since: 11 }), text('schedule', { since: 11 }), text('sites', { since: 11 }),
      real('budget_ms', { since: 11 }), real('delta', { since: 11 }), text('value', { since: 11 }), real('cost_a', { since: 11 }), real('cost_b', { since: 11 }),
    ],
    since: 10,
  },
  {
    name: 'refreshes',
    columns: [
      int('seq', rowid), int('gen', NN), int('page_id', ofPage), text('action', NN), int('http_status'), text('error'), text('etag'),
      text('last_modified'), text('at', NN),
      int('bytes', { since: 11 }), int('ms', { since: 11 }), real('est_ms', { since: 11 }), int('changed', { since: 11 }),
      int('links_added', { since: 11 }), int('links_gone', { since: 11 }), real('scent', { since: 11 }),
    ],
    indexes: [
      { name: 'refreshes_page', columns: ['gen', 'page_id'], unique: true },
      { name: 'refreshes_last', columns: ['page_id', 'seq'] },
    ],
    since: 10,
  },
  {
    name: 'refresh_plan',
    columns: [int('gen', NN), int('rank', NN), int('page_id', NN), real('est_ms', NN)],
    primaryKey: ['gen', 'rank'],
    keyOnly: true,
    since: 11,
  },
  {
    name: 'watch_hubs',
    columns: [
      int('page_id', { primary: 'given', references: 'pages(id)', onDelete: 'CASCADE' }), int('site_id', NN), text('grp', NN),
      text('added', { notNull: true, oneOf: ['auto', 'manual'] }), int('added_at', NN), int('removed_at'), int('first_check'),
      int('last_check'), int('next_check'),
    ],
    indexes: [{ name: 'watch_due', columns: ['next_check'], where: 'removed_at IS NULL' }],
    since: 12,
  },
  {
    name: 'watch_items',
    columns: [
      int('id', rowid), int('hub_id', NN), text('kind', { notNull: true, oneOf: ['page', 'external'] }), text('url', NN), text('grp', NN),
      int('found_at', NN), int('from_t', NN), int('to_t', NN), int('point'),
      text('source', { notNull: true, oneOf: ['published', 'midpoint', 'interval'] }),
    ],
    unique: [['hub_id', 'kind', 'url']],
    indexes: [{ name: 'watch_items_group', columns: ['grp', 'to_t'] }],
    since: 12,
  },
  {
    name: 'watch_checks',
    columns: [
      int('seq', rowid), int('hub_id', NN), int('at', NN), text('action', NN), int('http_status'), int('new_items', NN),
      int('next_check', NN), text('schedule', NN), text('etag'), text('last_modified'),
    ],
    indexes: [{ name: 'watch_checks_hub', columns: ['hub_id', 'seq'] }],
    since: 12,
  },
];

const at = (since: number | undefined, version: number): boolean => (since ?? 1) <= version;

/** The layout as it stood at `version`: the tables, columns and indexes added by then. */
export function tablesAt(version: number): Table[] {
  return tables
    .filter((t) => at(t.since, version))
    .map((t) => ({ ...t, columns: t.columns.filter((c) => at(c.since, version)), indexes: t.indexes?.filter((i) => at(i.since, version)) }));
}

/** What one version added to the one before it: whole tables, columns of older tables, indexes of older tables. */
function addedIn(version: number): { tables: Table[]; columns: { table: Table; column: Column }[]; indexes: { table: Table; index: Index }[] } {
  const now = tablesAt(version);
  const isNew = (t: Table) => (t.since ?? 1) === version;
  return {
    tables: now.filter(isNew),
    columns: now.filter((t) => !isNew(t)).flatMap((table) => table.columns.filter((c) => c.since === version).map((column) => ({ table, column }))),
    indexes: now.filter((t) => !isNew(t)).flatMap((table) => (table.indexes ?? []).filter((i) => i.since === version).map((index) => ({ table, index }))),
  };
}

/** A partial index's predicate in the store's spelling. */
const predicate = (index: Index, kind: DbKind): string | undefined => (typeof index.where === 'function' ? index.where(kind) : index.where);

/** A column's constraints after its type, the same words in both stores. */
export function constraints(c: Column): string {
  let s = '';
  if (c.notNull) s += ' NOT NULL';
  if (c.default !== undefined) s += ` DEFAULT ${c.default}`;
  if (c.oneOf) s += ` CHECK (${c.name} IN (${c.oneOf.map((v) => `'${v}'`).join(', ')}))`;
  if (c.references) s += ` REFERENCES ${c.references}${c.onDelete ? ` ON DELETE ${c.onDelete}` : ''}`;
  return s;
}

/** The table-level keys: a primary key of several columns and UNIQUE constraints. */
function tableKeys(t: Table): string[] {
  return [...(t.primaryKey ? [`PRIMARY KEY (${t.primaryKey.join(', ')})`] : []), ...(t.unique ?? []).map((u) => `UNIQUE (${u.join(', ')})`)];
}

/** CREATE INDEX for either store. */
export function createIndex(table: Table, index: Index, kind: DbKind): string {
  const where = predicate(index, kind);
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${index.name} ON ${table.name} (${index.columns.join(', ')})${where ? ` WHERE ${where}` : ''}`;
}

/** CREATE TABLE for either store, the column types given by the store's mapping. */
export function createTable(t: Table, columnSql: (c: Column) => string): string {
  const lines = [...t.columns.map(columnSql), ...tableKeys(t)];
  return `CREATE TABLE ${t.name} (\n  ${lines.join(',\n  ')}\n)`;
}

/**
 * The statements that bring the layout from the version before `version` to it, in a store's
 * spelling: its new tables (`create`), then the columns and indexes it added to older ones.
 */
export function stepTo(version: number, kind: DbKind, create: (t: Table) => string[], columnSql: (c: Column) => string): string[] {
  const added = addedIn(version);
  return [
    ...added.tables.flatMap(create),
    ...added.columns.map(({ table, column }) => `ALTER TABLE ${table.name} ADD COLUMN ${columnSql(column)}`),
    ...added.indexes.map(({ table, index }) => createIndex(table, index, kind)),
  ];
}
