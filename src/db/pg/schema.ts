import type { Db } from '../db-types.js';
import { keepBreadthFirst } from '../migrations.js';
import { migratePageOwners } from '../page-owners.js';
import { constraints, createIndex, createTable, SCHEMA_VERSION, stepTo, tables, tablesAt, type Column, type Table } from '../tables.js';

/**
 * The beebot database layout for PostgreSQL, made from the table list (src/db/tables.ts) that
 * SQLite's is made from: created in one go when a PostgreSQL store is first opened (pg/open.ts)
 * and by `beebot db copy` (src/db/copy/). test/db/pg/pg-store.test.ts and test/db/schema.test.ts compare it
 * with SQLite's, table by table and column by column.
 *
 * What differs from SQLite, and why:
 * - Every integer is BIGINT: SQLite's integers are 64-bit (pages.fp is a signed 64-bit
 *   fingerprint, dir reaches 2^32, watch times are epoch ms). node-pg returns BIGINT as a string
 *   unless the store installs a type parser for it (type 20): the store decides per column.
 * - Ids that SQLite assigns (INTEGER PRIMARY KEY rowids) are BIGSERIAL. Ids beebot assigns itself
 *   stay BIGINT PRIMARY KEY: refresh_runs.gen (max + 1) and watch_hubs.page_id (a page's id).
 *   Copying rows with their ids (`beebot db copy`) must move each sequence past them (setval).
 * - A real is DOUBLE PRECISION (SQLite's REAL is an 8-byte float). Times stay TEXT ISO strings as
 *   in SQLite (and epoch-ms BIGINTs where SQLite has integers), so both stores hold and compare
 *   the same strings.
 * - A key-only table (SQLite: WITHOUT ROWID) is a plain table: PostgreSQL tables are heaps with
 *   the primary key as an index.
 * - pages_query's predicate is `strpos(key, '?') > 0` (SQLite: `instr(key, '?') > 0`): the
 *   planner uses a partial index only for queries that repeat its predicate.
 * - page_text is FTS5 in SQLite. Here it is a plain table keyed by the page (rowid = pages.id
 *   there), the same text blocks, and a generated tsvector over them weighted title A,
 *   anchors B, headings C, body D (the order of search/weights.ts), with a GIN index. The 'simple'
 *   configuration splits words and lowercases them without stemming, as FTS5's unicode61 does; it
 *   does not remove diacritics. The foreign key's ON DELETE CASCADE replaces SQLite's
 *   page_text_gone trigger.
 * - SQLite-only migration steps (the data rewrites of older databases) have no counterpart:
 *   PostgreSQL stores began at schema 12.
 */
export const PG_SCHEMA_VERSION = SCHEMA_VERSION;

const TYPE = { integer: 'BIGINT', real: 'DOUBLE PRECISION', text: 'TEXT' } as const;

function column(c: Column): string {
  if (c.primary === 'assigned') return `${c.name} BIGSERIAL PRIMARY KEY${constraints(c)}`;
  return `${c.name} ${TYPE[c.type]}${c.primary ? ' PRIMARY KEY' : ''}${constraints(c)}`;
}

const WEIGHTS = ['A', 'B', 'C', 'D'];

function statements(t: Table): string[] {
  if (t.textSearch) {
    const { of, key } = t.textSearch;
    const tsv = t.columns.map((c, i) => `setweight(to_tsvector('simple', coalesce(${c.name}, '')), '${WEIGHTS[i]}')`).join(' ||\n    ');
    const keyColumn: Column = { name: key, type: 'integer', primary: 'given', references: `${of}(id)`, onDelete: 'CASCADE' };
    const withKey = { ...t, columns: [keyColumn, ...t.columns] };
    return [
      createTable(withKey, column).replace(/\n\)$/, `,\n  tsv tsvector GENERATED ALWAYS AS (\n    ${tsv}\n  ) STORED\n)`),
      `CREATE INDEX ${t.name}_search ON ${t.name} USING GIN (tsv)`,
    ];
  }
  return [createTable(t, column), ...(t.indexes ?? []).map((i) => createIndex(t, i, 'pg'))];
}

/** Every statement that creates the layout at `version` in an empty PostgreSQL database (tests build older stores with it). */
export function pgSchemaAt(version: number): string[] {
  return tablesAt(version).flatMap(statements);
}

export const pgSchema: readonly string[] = tables.flatMap(statements);

// The oldest layout a PostgreSQL store was made with: older ones never existed.
const PG_OLDEST = 12;

// What an upgrade does beyond the layout, as the SQLite migration of the same version does.
const pgData: Readonly<Record<number, readonly string[]>> = { 16: [keepBreadthFirst] };

const upgradeTo = (version: number): string[] => [...stepTo(version, 'pg', statements, column), ...(pgData[version] ?? [])];

/**
 * The steps that bring a PostgreSQL store of an older layout to this one, by the version they
 * start from: the tables, columns and indexes the next version added, then its data steps.
 */
export const pgUpgrades: Readonly<Record<number, readonly string[]>> = Object.fromEntries(
  Array.from({ length: SCHEMA_VERSION - PG_OLDEST }, (_, i) => [PG_OLDEST + i, upgradeTo(PG_OLDEST + i + 1)]),
);

/** Data rewrites by beebot's own rules, each run after the upgrade from its version (SQLite's `rewrites`). */
export const pgRewrites: Readonly<Partial<Record<number, (db: Db) => void>>> = { 17: migratePageOwners };
