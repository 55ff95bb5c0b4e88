// `beebot db copy` through the real CLI: a SQLite crawl of the fixture web (with page text and a
// refresh) copied to a real PostgreSQL server and back to a new SQLite file must come back equal,
// table by table and row by row; the target must be empty; a failure leaves nothing behind.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureSeeds } from '../../fixtures/web.js';
import { pgSchema } from '../../src/db/pg/schema.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';

const tmp = tempDir();
let web: FixtureWeb | undefined;
let cluster: PgCluster | undefined;
let admin: pg.Client;
const original = join(tmp.dir, 'crawl.db');
const back = join(tmp.dir, 'back.db');
const pgUrl = (db: string) => cluster!.url.replace(/\/postgres$/, `/${db}`);
// db copy ignores --db; the helper passes one anyway
const run = (args: string[]) => beebot(args, { db: join(tmp.dir, 'unused.db') });

beforeAll(async () => {
  cluster = await startPostgres();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  for (const name of ['crawl', 'failed', 'fresh', 'forward', 'broken']) await admin.query(`CREATE DATABASE ${name}`);

  web = await startFixtureWeb();
  const db = original;
  const csv = ['url,name,short,group', ...fixtureSeeds.map((s) => `${web!.url(s.host)},"${s.name}",${s.short},${s.group}`)].join('\n');
  writeFileSync(join(tmp.dir, 'seeds.csv'), csv);
  expect((await beebot(['seeds', 'import', join(tmp.dir, 'seeds.csv')], { db })).code).toBe(0);
  expect((await beebot(['config', 'set', 'index-text', 'yes'], { db })).code).toBe(0);
  expect((await beebot(['params', 'set', 'TSU', '/search.php', 'q', 'required'], { db })).code).toBe(0);
  const crawl = await beebot(['crawl', '--delay', '0', '--concurrency', '4', ...web.resolveArgs()], { db });
  expect(crawl.code, crawl.stderr).toBe(0);
  const refresh = await beebot(['refresh', '--budget-time', '1h', '--delay', '0', ...web.resolveArgs()], { db });
  expect(refresh.code, refresh.stderr).toBe(0);
  const read = new Database(db, { readonly: true });
  const host = read.prepare('SELECT host FROM external_links ORDER BY id LIMIT 1').pluck().get() as string;
  read.close();
  const deleted = await beebot(['links', 'delete', 'external', '--host', host, '--yes'], { db });
  expect(deleted.code, deleted.stderr).toBe(0);
  expect((await beebot(['watch', 'add', web.url('hubs.test')], { db })).code).toBe(0);
  const watch = await beebot(['watch', '--for', '2s', '--schedule', 'fixed', '--delay', '0', ...web.resolveArgs()], { db });
  expect(watch.code, watch.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await admin?.end();
  await cluster?.stop();
  await web?.close();
  tmp.cleanup();
});

const FTS5_SHADOWS = ['data', 'idx', 'content', 'docsize', 'config'];

/** Every table of a SQLite database (FTS5 internals aside), each as its rows in key order, 64-bit integers as bigint. */
function dump(file: string): Record<string, unknown[][]> {
  const db = new Database(file, { readonly: true });
  try {
    const all = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string; sql: string }[];
    const fts = all.filter((t) => /USING\s+fts5/i.test(t.sql)).map((t) => t.name);
    const out: Record<string, unknown[][]> = {};
    for (const { name, sql } of all) {
      if (fts.some((f) => FTS5_SHADOWS.map((s) => `${f}_${s}`).includes(name))) continue;
      let select: string;
      if (fts.includes(name)) select = `SELECT rowid, title, anchors, headings, body FROM ${name} ORDER BY rowid`;
      // settings are keyed by name: their rowids are only the order they were first written, which PostgreSQL does not keep
      else if (name === 'settings') select = 'SELECT * FROM settings ORDER BY key';
      else if (/WITHOUT ROWID/i.test(sql)) {
        const key = (db.prepare(`PRAGMA table_info(${name})`).all() as { name: string; pk: number }[]).filter((c) => c.pk).sort((a, b) => a.pk - b.pk).map((c) => c.name);
        select = `SELECT * FROM ${name} ORDER BY ${key.join(', ')}`;
      } else select = `SELECT rowid AS _rowid, * FROM ${name} ORDER BY rowid`;
      out[name] = db.prepare(select).safeIntegers(true).raw(true).all() as unknown[][];
    }
    return out;
  } finally {
    db.close();
  }
}

async function pgCounts(db: string): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: pgUrl(db) });
  await c.connect();
  try {
    const { rows } = await c.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    const out: Record<string, number> = {};
    for (const { table_name: t } of rows) out[t] = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`)).rows[0]!.n;
    return out;
  } finally {
    await c.end();
  }
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('beebot db copy', () => {
  let before: Record<string, unknown[][]>;
  let timing = '';

  it('copies the crawl from SQLite to an empty PostgreSQL database, every table with its row count', async () => {
    before = dump(original);
    // a non-trivial crawl: hundreds of pages, their text, a refresh round
    expect(before.pages!.length).toBeGreaterThan(200);
    expect(before.page_text!.length).toBeGreaterThan(100);
    expect(before.refreshes!.length).toBeGreaterThan(100);
    expect(before.refresh_runs!.length).toBe(1);
    expect(before.param_rules!.length).toBe(1);
    expect(before.deleted_links!.length).toBeGreaterThan(0);
    expect(before.watch_hubs!.length).toBeGreaterThan(0);
    expect(before.watch_checks!.length).toBeGreaterThan(0);
    expect(Object.keys(before).length).toBe(20);

    const r = await run(['db', 'copy', original, pgUrl('crawl')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    timing = r.stdout.split('\n').find((l) => l.startsWith('copied'))!;
    const total = Object.values(before).reduce((s, rows) => s + rows.length, 0);
    expect(timing).toMatch(new RegExp(`^copied ${total} rows from .*crawl\\.db to postgres://postgres@127\\.0\\.0\\.1:\\d+/crawl in \\d+\\.\\d\\d s$`));
    for (const [table, rows] of Object.entries(before)) expect(r.stdout, table).toMatch(new RegExp(`^${table}\\t${rows.length}$`, 'm'));

    // the secondary indexes, built after the rows: every one of the layout is there
    const c = new pg.Client({ connectionString: pgUrl('crawl') });
    await c.connect();
    const { rows: indexes } = await c.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`);
    await c.end();
    const declared = pgSchema.map((st) => /^CREATE (?:UNIQUE )?INDEX (\w+)/.exec(st)?.[1]).filter((n) => n !== undefined);
    expect(declared.length).toBeGreaterThan(10);
    expect(indexes.map((i) => i.indexname).filter((n) => declared.includes(n)).sort()).toEqual([...declared].sort());

    const counts = await pgCounts('crawl');
    // the workers' coordination tables come with every PostgreSQL store (pgStoreFinish)
    expect(Object.keys(counts).sort()).toEqual([...Object.keys(before), 'budget_spent', 'host_slots', 'page_leases'].sort());
    for (const [table, rows] of Object.entries(before)) expect(counts[table], table).toBe(rows.length);
  }, 120_000);

  it('copies it back to a new SQLite file equal to the original, row for row, 64-bit fingerprints exact', async () => {
    const r = await run(['db', 'copy', pgUrl('crawl'), back]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const after = dump(back);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);

    // the fingerprints really use 64 bits: beyond doubles' 2^53, and negative
    const read = new Database(original, { readonly: true });
    const fpAt = (read.prepare('PRAGMA table_info(pages)').all() as { name: string }[]).findIndex((c) => c.name === 'fp') + 1; // +1: _rowid first
    read.close();
    expect(fpAt).toBeGreaterThan(0);
    const fps = before.pages!.map((row) => row[fpAt] as bigint);
    expect(fps.every((v) => typeof v === 'bigint')).toBe(true);
    expect(fps.some((v) => v > 2n ** 53n)).toBe(true);
    expect(fps.some((v) => v < -(2n ** 53n))).toBe(true);
    console.log(Object.entries(before).map(([t, rows]) => `${t} ${rows.length}`).join(', '));
    console.log(`db copy, SQLite → PostgreSQL: ${timing}`);
    console.log(`db copy, PostgreSQL → SQLite: ${r.stdout.split('\n').find((l) => l.startsWith('copied'))}`);
  }, 120_000);

  it('moves every PostgreSQL sequence past the copied ids: an insert without id gets max + 1', async () => {
    const c = new pg.Client({ connectionString: pgUrl('crawl') });
    await c.connect();
    try {
      const { rows: serials } = await c.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND column_default LIKE 'nextval(%' ORDER BY table_name`,
      );
      expect(serials.map((s) => `${s.table_name}.${s.column_name}`)).toEqual([
        'bad_links.id', 'external_links.id', 'fetches.seq', 'pages.id', 'refreshes.seq', 'sites.id', 'watch_checks.seq', 'watch_items.id',
      ]);
      for (const { table_name: t, column_name: col } of serials) {
        await c.query('BEGIN');
        const max = BigInt((await c.query(`SELECT coalesce(max(${col}), 0)::text AS m FROM ${t}`)).rows[0].m);
        const next = BigInt((await c.query(`SELECT nextval(pg_get_serial_sequence('${t}', '${col}'))::text AS n`)).rows[0].n);
        await c.query('ROLLBACK');
        expect(next, `${t}.${col}`).toBe(max + 1n);
      }
      // and a real insert
      await c.query('BEGIN');
      const maxSite = BigInt((await c.query(`SELECT max(id)::text AS m FROM sites`)).rows[0].m);
      const site = await c.query(`INSERT INTO sites (url, added_at) VALUES ('http://new.test/', 'now') RETURNING id::text`);
      await c.query('ROLLBACK');
      expect(BigInt(site.rows[0].id)).toBeGreaterThan(maxSite);
      expect(maxSite).toBe(BigInt(fixtureSeeds.length));
    } finally {
      await c.end();
    }
  }, 60_000);

  it('refuses a target that is not empty: exit 1, one line, nothing changed', async () => {
    const countsBefore = await pgCounts('crawl');
    const r = await run(['db', 'copy', original, pgUrl('crawl')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^beebot: postgres:\/\/postgres@127\.0\.0\.1:\d+\/crawl already has beebot tables \(.*\); db copy writes only into an empty database\n$/);
    expect(await pgCounts('crawl')).toEqual(countsBefore);

    const hash = sha(back);
    const s = await run(['db', 'copy', pgUrl('crawl'), back]);
    expect(s.code).toBe(1);
    expect(s.stderr).toBe(`beebot: ${back} already exists; db copy writes only to a new file or an empty PostgreSQL database\n`);
    expect(sha(back)).toBe(hash);
  }, 60_000);

  it('fails whole: a row PostgreSQL cannot take leaves the target database without tables; a bad source leaves no file', async () => {
    // SQLite → SQLite, then a text with a NUL character, which SQLite stores and PostgreSQL refuses
    const bad = join(tmp.dir, 'nul.db');
    const copied = await run(['db', 'copy', original, bad]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(dump(bad)).toEqual(before);
    const w = new Database(bad);
    const last = w.prepare('SELECT max(id) FROM pages').pluck().get() as number;
    w.prepare('UPDATE pages SET note = ? WHERE id = ?').run('a\u0000b', last);
    w.close();
    const r = await run(['db', 'copy', bad, pgUrl('failed')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^beebot: copy to postgres:\/\/.*\/failed failed at table pages: .*; nothing was written\n$/);
    expect(await pgCounts('failed')).toEqual({});

    const missing = await run(['db', 'copy', join(tmp.dir, 'no-such.db'), join(tmp.dir, 'never.db')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^beebot: no database here: .*no-such\.db.*\n$/);
    expect(existsSync(join(tmp.dir, 'never.db'))).toBe(false);
    const notThere = await run(['db', 'copy', join(tmp.dir, 'no-such.db'), pgUrl('fresh')]);
    expect(notThere.code).toBe(1);
    expect(await pgCounts('fresh')).toEqual({});
    const noServer = await run(['db', 'copy', original, 'postgres://postgres@127.0.0.1:1/x']);
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toMatch(/^beebot: cannot connect to postgres:\/\/postgres@127\.0\.0\.1:1\/x: .*\n$/);
  }, 60_000);

  it('fails whole into SQLite too: a broken reference in the source leaves no file behind', async () => {
    expect((await run(['db', 'copy', original, pgUrl('broken')])).code).toBe(0);
    // PostgreSQL enforces the foreign keys; a superuser can switch their triggers off to break one
    const c = new pg.Client({ connectionString: pgUrl('broken') });
    await c.connect();
    await c.query('ALTER TABLE fetches DISABLE TRIGGER ALL');
    await c.query('UPDATE fetches SET page_id = 999999 WHERE seq = (SELECT max(seq) FROM fetches)');
    await c.end();
    const target = join(tmp.dir, 'broken.db');
    const r = await run(['db', 'copy', pgUrl('broken'), target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`beebot: copy to ${target} failed: the copy would break 1 reference (first in fetches); nothing was written\n`);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(tmp.dir).filter((f) => f.includes('copying'))).toEqual([]);
  }, 60_000);

  it('copies a page found on a later page (found_on > id) to PostgreSQL and back unchanged', async () => {
    const src = join(tmp.dir, 'forward.db');
    expect((await run(['db', 'copy', original, src])).code).toBe(0);
    const w = new Database(src);
    const [first, last] = w.prepare('SELECT min(id), max(id) FROM pages WHERE found_on IS NOT NULL').raw().get() as [number, number];
    w.prepare('UPDATE pages SET found_on = ? WHERE id = ?').run(last, first);
    w.close();
    // in batches of 10 rows, so that the page and the page it points at go in separate INSERTs
    const r = await run(['db', 'copy', '--batch-rows', '10', src, pgUrl('forward')]);
    expect(r.code, r.stderr).toBe(0);
    const again = join(tmp.dir, 'forward-back.db');
    expect((await run(['db', 'copy', '--batch-rows', '7', pgUrl('forward'), again])).code).toBe(0);
    const expected = dump(src);
    expect(dump(again)).toEqual(expected);
    expect(expected.pages).not.toEqual(before.pages);
  }, 60_000);

  it('rejects bad arguments with exit 2 and one line', async () => {
    const fresh = join(tmp.dir, 'x.db');
    for (const [args, message] of [
      [['db', 'copy', original, 'mysql://u@h/db'], `beebot: <to>: unknown kind of database 'mysql' (a SQLite file or a postgres:// URL)\n`],
      [['db', 'copy', 'postgres://u@h:5432/', fresh], 'beebot: <from>: a PostgreSQL URL needs a host and a database name (postgres://user@host:port/dbname)\n'],
      [['db', 'copy', original, original], 'beebot: <from> and <to> are the same database\n'],
      [['db', 'copy', original, ''], `beebot: <to>: empty; give a SQLite file or a postgres:// URL\n`],
      [['db', 'copy', '--batch-rows', '0', original, fresh], `beebot: --batch-rows: expected a whole number of at least 1, got '0'\n`],
    ] as const) {
      const r = await run([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(message);
    }
    // commander's own usage errors, one line each
    const short = await run(['db', 'copy', original]);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe(`error: missing required argument 'to'\n`);
    const unknown = await run(['db', 'copy', '--fast', original, fresh]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`error: unknown option '--fast'\n`);
    expect(existsSync(fresh)).toBe(false);
  }, 60_000);

  it('has --help', async () => {
    const r = await run(['db', 'copy', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: beebot db copy [options] <from> <to>');
    expect(r.stdout).toContain('postgres://');
    const top = await run(['--help']);
    expect(top.stdout).toMatch(/^\s+db\s/m);
  });
});
