import { existsSync, rmSync, statSync } from 'node:fs';
import { BeebotError } from '../../errors.js';
import { dbError, openDb, type Db } from '../db.js';
import type { CopyRow, CopySource, CopyTarget } from './endpoint.js';
import { quote, sqliteColumn, type CopyTable } from './layout.js';

/**
 * A SQLite file as the source: opened read-only, one read transaction from the first row to the
 * last (in WAL mode a running crawl keeps committing; this snapshot does not see it). Integers are
 * read as bigint (safeIntegers) so that pages.fp's 64 bits arrive whole.
 */
export function sqliteSource(file: string): CopySource {
  const db = openDb(file, { readonly: true });
  db.exec('BEGIN'); // the snapshot starts at the first read and lasts until close
  return {
    name: file,
    async *rows(table: CopyTable, batch: number) {
      const cols = table.columns.map((c) => quote(sqliteColumn(table, c))).join(', ');
      const order = table.key.map((c) => quote(sqliteColumn(table, c))).join(', ');
      const stmt = db.prepare(`SELECT ${cols} FROM ${quote(table.name)} ORDER BY ${order}`).safeIntegers(true).raw(true);
      let rows: CopyRow[] = [];
      try {
        for (const row of stmt.iterate() as IterableIterator<CopyRow>) {
          rows.push(row);
          if (rows.length >= batch) {
            yield rows;
            rows = [];
          }
        }
      } catch (err) {
        throw dbError(err, file);
      }
      if (rows.length) yield rows;
    },
    async close() {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
}

/**
 * A new SQLite file as the target: refused if the file exists and is not empty (nothing is
 * written then). openDb creates the schema; the rows go in with foreign keys off inside one
 * transaction, checked by foreign_key_check before the commit. On failure the file is removed.
 */
export function sqliteTarget(file: string): CopyTarget {
  if (existsSync(file) && statSync(file).size > 0) {
    throw new BeebotError(`${file} already exists; db copy writes only to a new file or an empty PostgreSQL database`);
  }
  const remove = () => {
    for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) rmSync(f, { force: true });
  };
  let db: Db;
  try {
    db = openDb(file);
    db.pragma('foreign_keys = OFF'); // only outside a transaction does this take effect
    db.exec('BEGIN');
  } catch (err) {
    remove();
    throw err;
  }
  const inserts = new Map<string, ReturnType<Db['prepare']>>();
  return {
    name: file,
    batchRows: () => 1000,
    async insert(table, rows) {
      let stmt = inserts.get(table.name);
      if (!stmt) {
        const cols = table.columns.map((c) => quote(sqliteColumn(table, c)));
        stmt = db.prepare(`INSERT INTO ${quote(table.name)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
        inserts.set(table.name, stmt);
      }
      try {
        for (const row of rows) stmt.run(row);
      } catch (err) {
        throw dbError(err, file);
      }
    },
    async commit() {
      const broken = db.pragma('foreign_key_check') as { table: string }[];
      if (broken.length) throw new BeebotError(`the copy would break ${broken.length} references (first in ${broken[0]!.table})`);
      db.exec('COMMIT');
      db.pragma('foreign_keys = ON');
      db.close();
    },
    async abort() {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
        db.close();
      } finally {
        remove();
      }
    },
  };
}
