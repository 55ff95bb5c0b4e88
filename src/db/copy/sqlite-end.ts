import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { BeebotError } from '../../errors.js';
import type Database from 'better-sqlite3';
import { dbError, openDb, sqliteOf } from '../db.js';
import { checkFolder } from '../db-file.js';
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
 * written then). The copy is built in `<file>.copying-<pid>` next to it and renamed into place
 * only after its commit, so a failed or killed copy never leaves a half-filled `<file>`. openDb
 * creates the schema; the rows go in with foreign keys off inside one transaction, checked by
 * foreign_key_check before the commit.
 */
export function sqliteTarget(file: string): CopyTarget {
  const taken = () => existsSync(file) && statSync(file).size > 0;
  const refuse = () => new BeebotError(`${file} already exists; db copy writes only to a new file or an empty PostgreSQL database`);
  checkFolder(file); // named as given, not as the part file beside it
  if (taken()) throw refuse();
  const part = `${file}.copying-${process.pid}`;
  const remove = () => {
    for (const f of [part, `${part}-wal`, `${part}-shm`, `${part}-journal`]) rmSync(f, { force: true });
  };
  let db: Database.Database;
  try {
    db = sqliteOf(openDb(part));
    db.pragma('foreign_keys = OFF'); // only outside a transaction does this take effect
    db.exec('BEGIN');
  } catch (err) {
    remove();
    throw dbError(err, file);
  }
  const inserts = new Map<string, Database.Statement>();
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
      if (broken.length) throw new BeebotError(`the copy would break ${broken.length} reference${broken.length === 1 ? '' : 's'} (first in ${broken[0]!.table})`);
      db.exec('COMMIT');
      db.pragma('foreign_keys = ON');
      db.close(); // the last connection: its WAL is checkpointed into the file and removed
      if (taken()) throw refuse(); // someone created it meanwhile
      renameSync(part, file);
    },
    async abort() {
      try {
        if (db.open && db.inTransaction) db.exec('ROLLBACK');
        if (db.open) db.close();
      } finally {
        remove();
      }
    },
  };
}
