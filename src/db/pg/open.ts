import { BeebotError } from '../../errors.js';
import type { Db } from '../db-types.js';
import { pgCoordination } from './coordination-tables.js';
import { PgDb } from './connection.js';
import { PG_SCHEMA_VERSION, pgRewrites, pgSchema, pgUpgrades } from './schema.js';
import { showUrl } from './url.js';


// The schema version is the settings table's comment: no table beyond SQLite's layout (pg-store.test.ts compares them).
export const MARK = `beebot schema ${PG_SCHEMA_VERSION}`;
// Workers started together must not both create the tables: one takes this lock, the others wait and find them.
const CREATE_LOCK = 0x6265_6562; // 'beeb'

/**
 * What a beebot PostgreSQL store has beyond the tables of pgSchema: the workers' coordination
 * tables and the version mark. `db copy` runs these too, so a copied crawl opens like a created one.
 */
export const pgStoreFinish: readonly string[] = [...pgCoordination, `COMMENT ON TABLE settings IS '${MARK}'`];

/**
 * Open a PostgreSQL store: an empty database gets the whole layout (pgSchema) and the workers'
 * coordination tables (coordination-tables.ts) in one transaction; a beebot database of this version is used
 * as it is; anything else is refused without a change.
 */
export function openPg(url: string, opts: { readonly?: boolean } = {}): Db {
  const name = showUrl(url);
  const db = new PgDb(name, url);
  try {
    db.transaction(() => {
      if (!opts.readonly) db.prepare('SELECT pg_advisory_xact_lock(?)').get(CREATE_LOCK);
      const mark = db.prepare(
        `SELECT obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = current_schema() AND c.relname = 'settings' AND c.relkind = 'r'`,
      ).pluck().all() as (string | null)[];
      if (mark.length) {
        if (mark[0] !== MARK) {
          const v = /^beebot schema (\d+)$/.exec(mark[0] ?? '');
          if (v && Number(v[1]) > PG_SCHEMA_VERSION) throw new BeebotError(`${name} was written by a newer beebot (schema ${v[1]}); upgrade beebot`);
          if (!v || opts.readonly || !upgradable(Number(v[1]))) throw new BeebotError(`${name} is not a beebot database of this version`);
          for (let from = Number(v[1]); from < PG_SCHEMA_VERSION; from++) {
            for (const statement of pgUpgrades[from]!) db.exec(statement);
            pgRewrites[from]?.(db);
          }
          db.exec(`COMMENT ON TABLE settings IS '${MARK}'`);
        }
        return;
      }
      if (opts.readonly) throw new BeebotError(`${name} is not a beebot database (no beebot tables)`);
      for (const statement of [...pgSchema, ...pgStoreFinish]) db.exec(statement);
    })();
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Every step from `version` to this layout is known. */
function upgradable(version: number): boolean {
  for (let v = version; v < PG_SCHEMA_VERSION; v++) if (!pgUpgrades[v]) return false;
  return true;
}
