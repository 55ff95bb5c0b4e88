import Database from 'better-sqlite3';

/** Rows of a query on a database file, opened read-only for it (a test reads what the CLI wrote). */
export function rows<T>(db: string, sql: string, ...args: unknown[]): T[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all(...args) as T[];
  } finally {
    d.close();
  }
}
