import { BeebotError } from '../../errors.js';
import { tables } from '../tables.js';

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

/**
 * Every table of the beebot layout (src/db/tables.ts), in its order, which satisfies the foreign
 * keys (a table only points at tables before it, and pages.found_on at pages itself).
 */
export function copyLayout(): CopyTable[] {
  return tables.map((t) => {
    if (t.textSearch) return { name: t.name, columns: [t.textSearch.key, ...t.columns.map((c) => c.name)], key: [t.textSearch.key], fts: true };
    const key = t.primaryKey ?? t.columns.filter((c) => c.primary).map((c) => c.name);
    if (key.length === 0) throw new BeebotError(`internal: table ${t.name} has no primary key to copy it in order`);
    return { name: t.name, columns: t.columns.map((c) => c.name), key: [...key], fts: false };
  });
}
