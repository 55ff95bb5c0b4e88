// The PostgreSQL layout (src/db/pg/schema.ts) against the SQLite one, on a real server started by
// the test itself: every table, column, type, NOT NULL, default, primary key and index of a fresh
// SQLite database must be there, so the two layouts cannot drift; plus round trips that use it.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, sqliteOf } from '../../../src/db/db.js';
import { fingerprint } from '../../../src/url/key-hash.js';
import { PG_SCHEMA_VERSION, pgSchema } from '../../../src/db/pg/schema.js';
import { migrations } from '../../../src/db/migrations.js';
import { tempDir } from '../../helpers/cli.js';
import { createDatabase, postgresBinDir, startPostgres, type PgCluster } from '../../helpers/postgres.js';

const tmp = tempDir();
let cluster: PgCluster | undefined;
let client: pg.Client;
let sqlite: Database.Database;

beforeAll(async () => {
  sqlite = sqliteOf(openDb(join(tmp.dir, 'layout.db')));
  cluster = await startPostgres();
  client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query('BEGIN');
  for (const statement of pgSchema) await client.query(statement);
  await client.query('COMMIT');
});

afterAll(async () => {
  await client?.end();
  await cluster?.stop();
  sqlite?.close();
  tmp.cleanup();
});

// What PostgreSQL has beyond SQLite's columns: page_text's key (FTS5's rowid) and its tsvector.
const PG_ONLY: Record<string, string[]> = { page_text: ['page_id', 'tsv'] };
const FTS5_SHADOWS = ['data', 'idx', 'content', 'docsize', 'config'];

interface SqliteColumn { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }

function sqliteTables(): string[] {
  const all = sqlite.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string; sql: string }[];
  const shadows = new Set(all.filter((t) => /USING\s+fts5/i.test(t.sql)).flatMap((t) => FTS5_SHADOWS.map((s) => `${t.name}_${s}`)));
  return all.map((t) => t.name).filter((n) => !shadows.has(n));
}

const PG_TYPE: Record<string, string> = { INTEGER: 'bigint', TEXT: 'text', REAL: 'double precision', '': 'text' };

describe('PostgreSQL schema', () => {
  it('is the layout of the last SQLite migration', () => {
    expect(PG_SCHEMA_VERSION).toBe(migrations.length);
    expect(sqlite.pragma('user_version', { simple: true })).toBe(migrations.length);
  });

  it('has exactly the tables of a fresh SQLite database (FTS5 internals aside)', async () => {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const tables = sqliteTables();
    expect(tables).toContain('page_text');
    expect(tables.length).toBeGreaterThan(10);
    expect(rows.map((r) => r.table_name)).toEqual(tables);
  });

  it('has every column of every table, in order, with the mapped type, NOT NULL and default', async () => {
    const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
        WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
    );
    let checked = 0;
    for (const table of sqliteTables()) {
      const expected = sqlite.prepare(`PRAGMA table_info(${table})`).all() as SqliteColumn[];
      const actual = rows.filter((r) => r.table_name === table);
      const pgOnly = PG_ONLY[table] ?? [];
      expect(actual.map((c) => c.column_name).filter((n) => !pgOnly.includes(n)), table).toEqual(expected.map((c) => c.name));
      for (const col of expected) {
        const got = actual.find((c) => c.column_name === col.name)!;
        const where = `${table}.${col.name}`;
        expect(got.data_type, where).toBe(PG_TYPE[col.type.toUpperCase()]);
        // a primary key column is NOT NULL in PostgreSQL whatever SQLite's (lax) table_info says
        expect(got.is_nullable, where).toBe(col.notnull || col.pk ? 'NO' : 'YES');
        const dflt = got.column_default?.replace(/::(text|bigint)$/, '') ?? null;
        if (col.dflt_value !== null) expect(dflt, where).toBe(col.dflt_value);
        else if (col.pk && /^nextval\(/.test(dflt ?? '')) expect(col.type, `${where}: only a rowid is a serial`).toBe('INTEGER');
        else expect(dflt, where).toBeNull();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('has the same primary keys', async () => {
    const { rows } = await client.query<{ table: string; cols: string[] }>(
      `SELECT t.relname AS table, array_agg(a.attname::text ORDER BY k.ord) AS cols
         FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = 'public' AND ix.indisprimary GROUP BY t.relname`,
    );
    const pgKeys = Object.fromEntries(rows.map((r) => [r.table, r.cols]));
    for (const table of sqliteTables()) {
      const cols = (sqlite.prepare(`PRAGMA table_info(${table})`).all() as SqliteColumn[]).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      // FTS5 keys page_text by its rowid: PostgreSQL names it page_id
      expect(pgKeys[table], table).toEqual(table === 'page_text' ? ['page_id'] : cols);
    }
  });

  it('has the same indexes and unique constraints, by name and columns', async () => {
    const { rows } = await client.query<{ index: string; table: string; cols: string[]; unique: boolean; partial: boolean; primary: boolean }>(
      `SELECT i.relname AS index, t.relname AS table, array_agg(a.attname::text ORDER BY k.ord) AS cols,
              ix.indisunique AS unique, ix.indpred IS NOT NULL AS partial, ix.indisprimary AS primary
         FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = 'public' GROUP BY i.relname, t.relname, ix.indisunique, ix.indpred, ix.indisprimary`,
    );
    const describeIndex = (table: string, cols: string[], unique: boolean, partial: boolean) => `${table}(${cols.join(',')})${unique ? ' unique' : ''}${partial ? ' partial' : ''}`;
    const expected: string[] = [];
    for (const table of sqliteTables()) {
      const list = sqlite.prepare(`PRAGMA index_list(${table})`).all() as { name: string; unique: number; origin: string; partial: number }[];
      for (const ix of list) {
        if (ix.origin === 'pk') continue; // compared with the primary keys
        const cols = (sqlite.prepare(`PRAGMA index_info(${ix.name})`).all() as { seqno: number; name: string }[]).sort((a, b) => a.seqno - b.seqno).map((c) => c.name);
        // a CREATE INDEX keeps its name; a UNIQUE constraint's index is named by each database its own way
        expected.push(`${ix.origin === 'c' ? ix.name : 'constraint'}: ${describeIndex(table, cols, ix.unique === 1, ix.partial === 1)}`);
      }
    }
    const actual = rows
      .filter((r) => !r.primary && r.index !== 'page_text_search')
      .map((r) => `${r.index.endsWith('_key') ? 'constraint' : r.index}: ${describeIndex(r.table, r.cols, r.unique, r.partial)}`);
    expect(expected.length).toBeGreaterThan(10);
    expect(actual.sort()).toEqual(expected.sort());
    // the full-text index replacing FTS5
    expect(rows.find((r) => r.index === 'page_text_search')).toMatchObject({ table: 'page_text', cols: ['tsv'] });
  });
});

describe('PostgreSQL round trip', () => {
  it('brings a store of layout 12 to this one when opened for writing, and refuses it read-only until then', async () => {
    const url = await createDatabase(cluster!);
    openDb(url).close();
    const old = new pg.Client({ connectionString: url });
    await old.connect();
    try {
      // back to layout 12: without the columns, index and table the later steps added (site scope, transient failures, what sitemaps gave, queued pages' nearer levels)
      await old.query(`DROP TABLE queued_levels; DROP INDEX pages_retry; ALTER TABLE pages DROP COLUMN attempts, DROP COLUMN first_failed_at, DROP COLUMN retry_at, DROP COLUMN sitemap;
        ALTER TABLE sites DROP COLUMN failures, DROP COLUMN unavailable_at, DROP COLUMN scope, DROP COLUMN include, DROP COLUMN exclude, DROP COLUMN sitemaps, DROP COLUMN sitemaps_read,
          DROP COLUMN sitemap_files, DROP COLUMN sitemap_problems;
        COMMENT ON TABLE settings IS 'beebot schema 12'`);
      expect(() => openDb(url, { readonly: true })).toThrow(/not a beebot database of this version/);
      openDb(url).close();
      const cols = await old.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name IN ('pages', 'sites') AND column_name IN ('attempts', 'first_failed_at', 'retry_at', 'failures', 'unavailable_at', 'scope', 'sitemap', 'sitemap_problems') ORDER BY 1`,
      );
      expect(cols.rows.map((r) => r.column_name)).toEqual(['attempts', 'failures', 'first_failed_at', 'retry_at', 'scope', 'sitemap', 'sitemap_problems', 'unavailable_at']);
      const mark = await old.query<{ c: string }>(`SELECT obj_description('settings'::regclass, 'pg_class') AS c`);
      expect(mark.rows[0]!.c).toBe(`beebot schema ${PG_SCHEMA_VERSION}`);
    } finally {
      await old.end();
    }
  });

  it('stores and reads back a site, its pages (64-bit fingerprints) and external links', async () => {
    const key = 'http://uni.example/research/';
    const { dir, fp } = fingerprint(key);
    const site = await client.query<{ id: string }>(
      `INSERT INTO sites (url, name, grp, added_at) VALUES ($1, $2, $3, $4) RETURNING id`,
      ['https://uni.example/', 'Uni', 'university', '2026-11-23T12:00:00.000Z'],
    );
    const siteId = site.rows[0]!.id;
    const start = await client.query<{ id: string }>(
      `INSERT INTO pages (site_id, key, dir, fp, url, level) VALUES ($1, $2, $3, $4, $5, 0) RETURNING id`,
      [siteId, 'http://uni.example/', fingerprint('http://uni.example/').dir, fingerprint('http://uni.example/').fp.toString(), 'https://uni.example/'],
    );
    const page = await client.query<{ id: string }>(
      `INSERT INTO pages (site_id, key, dir, fp, url, level, found_on, found_at, priority)
       VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8) RETURNING id`,
      [siteId, key, dir, fp.toString(), 'https://uni.example/research/', start.rows[0]!.id, '2026-11-23T12:00:01.000Z', 0.25],
    );
    const pageId = page.rows[0]!.id;
    expect(BigInt(pageId)).toBeGreaterThan(BigInt(start.rows[0]!.id)); // discovery order

    const back = await client.query(`SELECT key, dir, fp, level, status, found_on, found_at, priority FROM pages WHERE id = $1`, [pageId]);
    // node-pg returns BIGINT as text: exact for every 64-bit value
    expect(back.rows[0]).toEqual({
      key, dir: String(dir), fp: fp.toString(), level: '1', status: 'queued',
      found_on: start.rows[0]!.id, found_at: '2026-11-23T12:00:01.000Z', priority: 0.25,
    });
    // the seen-set lookup the crawl makes, through pages_seen
    const seen = await client.query(`SELECT id FROM pages WHERE site_id = $1 AND dir = $2 AND fp = $3`, [siteId, dir, fp.toString()]);
    expect(seen.rows).toEqual([{ id: pageId }]);

    const links = [
      ['http://other.example/a', 'https://other.example/a', 'Partner', 'other.example'],
      ['http://b.example/', 'http://b.example/', 'B', 'b.example'],
    ];
    for (const [k, url, anchor, host] of links) {
      await client.query(
        `INSERT INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag, found_at, host)
         VALUES ($1, $2, $3, $4, 1, $5, '', 'a', $6, $7)`,
        [siteId, pageId, k, url, anchor, '2026-11-23T12:00:02.000Z', host],
      );
    }
    // UNIQUE (page_id, key): the same link on the same page is stored once
    const again = await client.query(
      `INSERT INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag, host)
       VALUES ($1, $2, $3, $4, 1, 'again', '', 'a', 'other.example') ON CONFLICT (page_id, key) DO NOTHING`,
      [siteId, pageId, links[0]![0], links[0]![1]],
    );
    expect(again.rowCount).toBe(0);
    const ext = await client.query(
      `SELECT e.key, e.url, e.anchor, e.host, e.level, e.found_at, e.gone_at, p.url AS page FROM external_links e JOIN pages p ON p.id = e.page_id
        WHERE e.site_id = $1 ORDER BY e.id`,
      [siteId],
    );
    expect(ext.rows).toEqual(links.map(([k, url, anchor, host]) => ({
      key: k, url, anchor, host, level: '1', found_at: '2026-11-23T12:00:02.000Z', gone_at: null, page: 'https://uni.example/research/',
    })));

    // page_text: weighted full-text search over the generated tsvector; deleting the page removes its
    // text and its links (ON DELETE CASCADE, as SQLite's trigger and foreign keys do)
    await client.query(`INSERT INTO page_text (page_id, title, anchors, headings, body) VALUES ($1, 'Research', 'Our research', 'Groups', 'Webometrics and link analysis')`, [pageId]);
    const hit = await client.query(
      `SELECT page_id, ts_rank(tsv, q) > 0 AS ranked FROM page_text, plainto_tsquery('simple', 'webometrics') q WHERE tsv @@ q`,
    );
    expect(hit.rows).toEqual([{ page_id: pageId, ranked: true }]);
    await client.query(`DELETE FROM pages WHERE id = $1`, [pageId]);
    const left = await client.query(`SELECT (SELECT count(*) FROM page_text)::int AS text, (SELECT count(*) FROM external_links)::int AS links`);
    expect(left.rows[0]).toEqual({ text: 0, links: 0 });
  });
});

describe('the PostgreSQL test server: finding its binaries, stopping it', () => {
  const noPgConfig = 'beebot-no-such-pg_config';

  it('takes the newest /usr/lib/postgresql/N/bin that has initdb and pg_ctl', () => {
    const root = join(tmp.dir, 'lib-postgresql');
    for (const [v, tools] of [['9.6', ['initdb', 'pg_ctl']], ['15', ['initdb', 'pg_ctl']], ['16', ['psql']], ['common', ['initdb', 'pg_ctl']]] as const) {
      mkdirSync(join(root, v, 'bin'), { recursive: true });
      for (const t of tools) writeFileSync(join(root, v, 'bin', t), '');
    }
    expect(postgresBinDir({ pgConfig: noPgConfig, root })).toBe(join(root, '15', 'bin'));
  });

  it('says plainly that PostgreSQL is not installed when nothing is found', () => {
    expect(() => postgresBinDir({ pgConfig: noPgConfig, root: join(tmp.dir, 'nowhere') })).toThrow(/PostgreSQL is not installed.*apt-get install postgresql/);
  });

  it('stops a server a test left frozen (SIGSTOP) at once, not after pg_ctl gives up', async () => {
    const frozen = await startPostgres();
    frozen.pause();
    const t = performance.now();
    await frozen.stop();
    expect(performance.now() - t).toBeLessThan(30_000); // 62 s and a failed stop before the thaw
  }, 120_000);

  it('finds the installed server (pg_config --bindir, else the newest Debian version)', () => {
    const bin = postgresBinDir();
    expect(existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl')) && existsSync(join(bin, 'postgres'))).toBe(true);
  });
});
