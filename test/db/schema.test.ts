// One layout (src/db/tables.ts) for both stores: each database, created fresh and climbed from the
// oldest version it supports, ends with the same tables, columns, keys and indexes, read back from
// its own catalog (sqlite_master and pragmas; information_schema and pg_catalog); and the two
// stores hold the same tables and columns.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/db.js';
import { migrations } from '../../src/db/migrations.js';
import { pgCoordination } from '../../src/db/pg/coordination-tables.js';
import { PG_SCHEMA_VERSION, pgSchema, pgSchemaAt, pgUpgrades } from '../../src/db/pg/schema.js';
import { sqliteSchema } from '../../src/db/sqlite-schema.js';
import { SCHEMA_VERSION, tablesAt } from '../../src/db/tables.js';
import { fingerprint } from '../../src/url/key-hash.js';
import { urlHost } from '../../src/url/host.js';
import { tempDir } from '../helpers/cli.js';
import { createDatabase, startPostgres, type PgCluster } from '../helpers/postgres.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const FTS5_SHADOWS = ['data', 'idx', 'content', 'docsize', 'config'];
const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();

interface Columns { [table: string]: { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }[] }

function sqliteTables(db: Database.Database): { name: string; sql: string }[] {
  const all = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string; sql: string }[];
  const shadows = new Set(all.filter((t) => /USING\s+fts5/i.test(t.sql)).flatMap((t) => FTS5_SHADOWS.map((s) => `${t.name}_${s}`)));
  return all.filter((t) => !shadows.has(t.name));
}

function sqliteColumns(db: Database.Database): Columns {
  return Object.fromEntries(sqliteTables(db).map((t) => [t.name, db.prepare(`PRAGMA table_info(${t.name})`).all()])) as Columns;
}

/** Everything SQLite's catalog says about the layout, in a form two databases can be compared by. */
function sqliteCatalog(db: Database.Database) {
  const tables = sqliteTables(db);
  return {
    columns: sqliteColumns(db),
    keys: Object.fromEntries(tables.map((t) => [t.name, {
      foreign: db.prepare(`PRAGMA foreign_key_list(${t.name})`).all().map((f) => { const { id: _id, seq: _seq, ...rest } = f as Record<string, unknown>; return rest; }),
      checks: [...t.sql.matchAll(/CHECK \(([^()]*\([^()]*\))\)/g)].map((m) => oneLine(m[1]!)).sort(),
      withoutRowid: /WITHOUT ROWID\s*$/i.test(t.sql),
      virtual: /USING\s+fts5/i.test(t.sql) ? oneLine(t.sql.slice(t.sql.search(/USING/i))) : null,
      unique: (db.prepare(`PRAGMA index_list(${t.name})`).all() as { name: string; origin: string }[])
        .filter((i) => i.origin === 'u')
        .map((i) => (db.prepare(`PRAGMA index_info(${i.name})`).all() as { name: string }[]).map((c) => c.name).join(','))
        .sort(),
    }])),
    // CREATE INDEX and CREATE TRIGGER are kept as written: the same words make the same index
    indexes: (db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY name`).all() as { sql: string }[])
      .map((i) => ({ ...i, sql: oneLine(i.sql) })),
  };
}

/** A SQLite database as the first beebot made it (schema 1), the oldest one that opens. */
function sqliteAtOne(file: string): void {
  const old = new Database(file);
  old.exec(migrations[0]!);
  old.pragma('user_version = 1');
  old.close();
}

describe('the one table list', () => {
  it('is the layout of the last migration, on both stores', () => {
    expect(SCHEMA_VERSION).toBe(migrations.length);
    expect(PG_SCHEMA_VERSION).toBe(SCHEMA_VERSION);
  });

  it('SQLite: a fresh database and one climbed from schema 1 end with the same tables, columns, keys, indexes and triggers', () => {
    const fresh = join(tmp.dir, 'fresh.db');
    const climbed = join(tmp.dir, 'climbed.db');
    openDb(fresh).close();
    sqliteAtOne(climbed);
    openDb(climbed).close();
    const a = new Database(fresh, { readonly: true });
    const b = new Database(climbed, { readonly: true });
    try {
      expect(a.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(b.pragma('user_version', { simple: true })).toBe(migrations.length);
      const fromList = sqliteCatalog(a);
      expect(Object.keys(fromList.columns).length).toBe(20);
      expect(fromList.indexes.length).toBeGreaterThan(15);
      expect(fromList).toEqual(sqliteCatalog(b));
    } finally {
      a.close();
      b.close();
    }
  });

  it("SQLite: each migration leaves the tables, columns and indexes the list says it added (`since`)", () => {
    const db = new Database(':memory:');
    const det = { deterministic: true };
    db.function('beebot_dir', det, (key: unknown) => fingerprint(String(key)).dir);
    db.function('beebot_fp', det, (key: unknown) => fingerprint(String(key)).fp);
    db.function('beebot_key_host', det, (key: unknown) => urlHost(String(key)));
    db.pragma('foreign_keys = OFF');
    try {
      for (let v = 1; v <= migrations.length; v++) {
        db.exec(migrations[v - 1]!);
        const has = Object.fromEntries(Object.entries(sqliteColumns(db)).map(([t, cols]) => [t, cols.map((c) => c.name).sort()]));
        const listed = Object.fromEntries(tablesAt(v).map((t) => [t.name, t.columns.map((c) => c.name).sort()]));
        expect(has, `schema ${v}`).toEqual(listed);
        const indexes = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`).pluck().all() as string[]);
        expect(indexes, `schema ${v}`).toEqual(tablesAt(v).flatMap((t) => (t.indexes ?? []).map((i) => i.name)).sort());
      }
    } finally {
      db.close();
    }
  });

  it('SQLite: a fresh database is created by the list, not by the migrations', () => {
    const db = new Database(':memory:');
    for (const statement of sqliteSchema) db.exec(statement);
    expect(sqliteTables(db).length).toBe(20);
    db.close();
  });
});

describe('the one table list on PostgreSQL', () => {
  let cluster: PgCluster | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(() => cluster?.stop());

  async function pgCatalog(url: string) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const columns = await c.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
        `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
          WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
      );
      const indexes = await c.query(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`);
      const constraints = await c.query(
        `SELECT t.relname AS table, k.conname AS name, k.contype AS type, pg_get_constraintdef(k.oid) AS def
           FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
          WHERE n.nspname = 'public' ORDER BY 1, 2`,
      );
      const mark = await c.query<{ c: string }>(`SELECT obj_description('settings'::regclass, 'pg_class') AS c`);
      return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows, mark: mark.rows[0]!.c };
    } finally {
      await c.end();
    }
  }

  // the workers' coordination tables are PostgreSQL's alone (coordination-tables.ts); page_text's
  // key (FTS5's rowid) and tsvector likewise
  const COORDINATION = ['budget_spent', 'host_slots', 'page_leases'];
  const PG_TYPE: Record<string, string> = { INTEGER: 'bigint', TEXT: 'text', REAL: 'double precision', '': 'text' };

  function sameAsSqlite(columns: { table_name: string; column_name: string; data_type: string }[], sqlite: Columns): void {
    const tables: Record<string, string[]> = {};
    for (const c of columns) {
      if (COORDINATION.includes(c.table_name) || (c.table_name === 'page_text' && ['page_id', 'tsv'].includes(c.column_name))) continue;
      (tables[c.table_name] ??= []).push(`${c.column_name} ${c.data_type}`);
    }
    const expected = Object.fromEntries(Object.entries(sqlite).map(([t, cols]) => [t, cols.map((c) => `${c.name} ${PG_TYPE[c.type.toUpperCase()]}`)]));
    expect(tables).toEqual(expected);
  }

  it('a fresh store and one upgraded from schema 12 end with the same tables, columns, constraints and indexes, those of SQLite', async () => {
    const fresh = await createDatabase(cluster!);
    openDb(fresh).close();

    // a store as beebot made it at schema 12, the first PostgreSQL layout
    const climbed = await createDatabase(cluster!);
    const oldest = Math.min(...Object.keys(pgUpgrades).map(Number));
    expect(oldest).toBe(12);
    const c = new pg.Client({ connectionString: climbed });
    await c.connect();
    try {
      await c.query('BEGIN');
      for (const statement of [...pgSchemaAt(oldest), ...pgCoordination]) await c.query(statement);
      await c.query(`COMMENT ON TABLE settings IS 'beebot schema ${oldest}'`);
      await c.query('COMMIT');
    } finally {
      await c.end();
    }
    const before = await pgCatalog(climbed);
    expect(before.columns.some((col) => col.column_name === 'sitemap_files')).toBe(false);
    openDb(climbed).close();

    const a = await pgCatalog(fresh);
    const b = await pgCatalog(climbed);
    expect(a.mark).toBe(`beebot schema ${PG_SCHEMA_VERSION}`);
    expect(a.columns.length).toBeGreaterThan(150);
    expect(a.indexes.length).toBeGreaterThan(30);
    expect(b).toEqual(a);

    const sqlite = new Database(':memory:');
    for (const statement of sqliteSchema) sqlite.exec(statement);
    try {
      sameAsSqlite(a.columns, sqliteColumns(sqlite));
      sameAsSqlite(b.columns, sqliteColumns(sqlite));
    } finally {
      sqlite.close();
    }
    // every table and index the layout declares is there
    const declared = pgSchema.map((st) => /^CREATE (?:UNIQUE )?INDEX (\w+)/.exec(st)?.[1]).filter((n) => n !== undefined);
    expect(a.indexes.map((i) => i.indexname)).toEqual(expect.arrayContaining(declared));
  }, 120_000);
});
