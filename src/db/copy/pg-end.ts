import pg from 'pg';
import { BeebotError } from '../../errors.js';
import { pgStoreFinish } from '../pg/open.js';
import { pgSchema } from '../pg/schema.js';
import { showUrl } from '../pg/url.js';
import type { CopyRow, CopySource, CopyTarget, CopyValue } from './endpoint.js';
import { copyLayout, quote, type CopyTable } from './layout.js';

const PG_MAX_PARAMS = 65535;
const INT8 = 20;

/** A client that reads BIGINT as bigint (node-pg's default is a string): exact for 64-bit values. */
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8 ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
    },
  });
  client.on('error', () => {}); // a dropped connection surfaces as the failing query's error
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new BeebotError(`cannot connect to ${showUrl(url)}: ${(err as Error).message}`);
  }
  return client;
}

/** The beebot tables present in the connection's schema. */
async function beebotTables(client: pg.Client): Promise<string[]> {
  const names = copyLayout().map((t) => t.name);
  const { rows } = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY($1) ORDER BY table_name`,
    [names],
  );
  return rows.map((r) => r.table_name);
}

/**
 * A PostgreSQL database as the source: one REPEATABLE READ, READ ONLY transaction (one snapshot
 * for every table), each table read through a cursor a batch at a time.
 */
export async function pgSource(url: string): Promise<CopySource> {
  const client = await connect(url);
  try {
    const present = await beebotTables(client);
    const missing = copyLayout().filter((t) => !present.includes(t.name)).map((t) => t.name);
    if (missing.length) throw new BeebotError(`${showUrl(url)} is not a beebot database (no table ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''})`);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
  return {
    name: showUrl(url),
    async *rows(table: CopyTable, batch: number) {
      const cols = table.columns.map(quote).join(', ');
      await client.query(`DECLARE beebot_copy NO SCROLL CURSOR FOR SELECT ${cols} FROM ${quote(table.name)} ORDER BY ${table.key.map(quote).join(', ')}`);
      for (;;) {
        const r = await client.query<CopyRow>({ text: `FETCH ${batch} FROM beebot_copy`, rowMode: 'array' });
        if (r.rows.length === 0) break;
        yield r.rows;
      }
      await client.query('CLOSE beebot_copy');
    },
    async close() {
      try {
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
    },
  };
}

const param = (v: CopyValue): unknown => (typeof v === 'bigint' ? v.toString() : v);

// The secondary indexes (CREATE INDEX: the GIN index on the page texts above all) are built once
// after the rows are in, which is cheaper than keeping them up to date row by row; keys and
// UNIQUE constraints are part of CREATE TABLE and hold from the first row.
const indexesAfter = pgSchema.filter((s) => /^CREATE (UNIQUE )?INDEX/.test(s));
const tablesFirst = pgSchema.filter((s) => !indexesAfter.includes(s));

/**
 * An empty PostgreSQL database as the target: refused (nothing written) if any beebot table is
 * there already. One transaction creates the tables (pgSchema), inserts every row with its id in
 * multi-row INSERTs (as many rows as fit in 65535 parameters, at most 1000), creates the indexes,
 * moves every BIGSERIAL sequence past the largest id, and commits: all or nothing.
 *
 * Foreign keys are checked as rows arrive (they are not deferrable); the tables come in an order
 * where each points only at earlier ones. The one self-reference, pages.found_on, points at the
 * page a link was found on, stored before it; should a page point at a later one, its found_on is
 * inserted NULL and set once all pages are in.
 */
export async function pgTarget(url: string): Promise<CopyTarget> {
  const client = await connect(url);
  try {
    const present = await beebotTables(client);
    if (present.length) {
      throw new BeebotError(`${showUrl(url)} already has beebot tables (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}); db copy writes only into an empty database`);
    }
    await client.query('BEGIN');
    for (const statement of tablesFirst) await client.query(statement);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    await client.end().catch(() => {});
    throw err;
  }
  const forward: [bigint, bigint][] = []; // pages whose found_on is a later page: (id, found_on)

  const setForward = async () => {
    for (let i = 0; i < forward.length; i += 1000) {
      const part = forward.slice(i, i + 1000);
      const values = part.map((_, j) => `($${2 * j + 1}::bigint, $${2 * j + 2}::bigint)`).join(', ');
      await client.query(`UPDATE pages SET found_on = v.f FROM (VALUES ${values}) AS v(id, f) WHERE pages.id = v.id`, part.flatMap(([id, f]) => [id.toString(), f.toString()]));
    }
  };

  const advanceSequences = async () => {
    const { rows } = await client.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1) AND column_default LIKE 'nextval(%' ORDER BY table_name`,
      [copyLayout().map((t) => t.name)], // the database may hold other tables: only ours
    );
    for (const { table_name: t, column_name: c } of rows) {
      // an empty table's sequence starts at 1; otherwise the next id is max + 1
      await client.query(
        `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(${quote(c)}), 1), max(${quote(c)}) IS NOT NULL) FROM ${quote(t)}`,
        [quote(t), c],
      );
    }
  };

  return {
    name: showUrl(url),
    batchRows: (table) => Math.min(1000, Math.floor(PG_MAX_PARAMS / table.columns.length)),
    async insert(table, rows) {
      if (table.name === 'pages') {
        const id = table.columns.indexOf('id');
        const foundOn = table.columns.indexOf('found_on');
        rows = rows.map((row) => {
          const f = row[foundOn];
          if (f === null || f === undefined || BigInt(f as bigint) < BigInt(row[id] as bigint)) return row;
          forward.push([BigInt(row[id] as bigint), BigInt(f as bigint)]);
          const copy = [...row];
          copy[foundOn] = null;
          return copy;
        });
      }
      const n = table.columns.length;
      const values = rows.map((_, i) => `(${table.columns.map((__, j) => `$${i * n + j + 1}`).join(', ')})`).join(', ');
      await client.query(
        `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(', ')}) VALUES ${values}`,
        rows.flatMap((row) => row.map(param)),
      );
    },
    async commit() {
      await setForward();
      for (const statement of indexesAfter) await client.query(statement);
      await advanceSequences();
      for (const statement of pgStoreFinish) await client.query(statement);
      await client.query('COMMIT');
      await client.end();
    },
    async abort() {
      try {
        await client.query('ROLLBACK');
      } finally {
        await client.end().catch(() => {});
      }
    },
  };
}
