import { BeebotError } from '../../errors.js';
import { openDb } from '../db.js';
import { pgSchema } from '../pg/schema.js';

/**
 * One table as `beebot db copy` moves it, named the PostgreSQL way: page_text's key is `page_id`
 * (SQLite's FTS5 table keys it by its rowid; `sqliteColumn` maps it back).
 */
export interface CopyTable {
  name: string;
  columns: string[];
  /** primary key columns: rows are read in this order */
  key: string[];
  /** SQLite keeps this table in FTS5 (page_text): its page_id is the rowid there */
  fts: boolean;
}

/** The column as SQLite spells it: FTS5 has no page_id column, only its rowid. */
export function sqliteColumn(table: CopyTable, column: string): string {
  return table.fts && column === 'page_id' ? 'rowid' : column;
}

export const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

let cached: CopyTable[] | undefined;

/**
 * Every table of the beebot layout, in the order pgSchema creates them, which is an order that
 * satisfies the foreign keys (a table only points at tables created before it, and pages.found_on
 * at pages itself). The columns and keys are read from a fresh in-memory SQLite database built by
 * the migrations, so neither list is kept by hand; test/pg-store.test.ts keeps pgSchema equal to it.
 */
export function copyLayout(): CopyTable[] {
  if (cached) return cached;
  const order = pgSchema.map((s) => /^CREATE TABLE (\w+)/.exec(s)?.[1]).filter((n): n is string => n !== undefined);
  const db = openDb(':memory:');
  try {
    const all = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string; sql: string }[];
    const ftsNames = new Set(all.filter((t) => /USING\s+fts5/i.test(t.sql)).map((t) => t.name));
    // FTS5 keeps its index in shadow tables named after it: they are rebuilt, not copied
    const shadow = (n: string) => [...ftsNames].some((f) => n.startsWith(`${f}_`));
    const sqliteTables = all.map((t) => t.name).filter((n) => !shadow(n)).sort();
    if (JSON.stringify([...order].sort()) !== JSON.stringify(sqliteTables)) {
      throw new BeebotError(`internal: the PostgreSQL and SQLite layouts list different tables (${order.join(', ')} / ${sqliteTables.join(', ')})`);
    }
    cached = order.map((name) => {
      const info = db.prepare(`PRAGMA table_info(${quote(name)})`).all() as { name: string; pk: number }[];
      const fts = ftsNames.has(name);
      if (fts) return { name, columns: ['page_id', ...info.map((c) => c.name)], key: ['page_id'], fts };
      const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      if (key.length === 0) throw new BeebotError(`internal: table ${name} has no primary key to copy it in order`);
      return { name, columns: info.map((c) => c.name), key, fts };
    });
    return cached;
  } finally {
    db.close();
  }
}
