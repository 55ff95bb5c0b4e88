import { openDb } from '../../src/db/db.js';

/**
 * Rows of a query on a database (a SQLite file or a PostgreSQL URL), opened read-only for it (a
 * test reads what the CLI wrote).
 */
export function rows<T>(db: string, sql: string, ...args: unknown[]): T[] {
  const d = openDb(db, { readonly: true });
  try {
    return d.prepare(sql).all(...args) as T[];
  } finally {
    d.close();
  }
}
