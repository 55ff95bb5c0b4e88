import { constraints, createIndex, createTable, tables, tablesAt, stepTo, type Column, type Table } from './tables.js';

/**
 * SQLite's statements for the layout of tables.ts: what a fresh database is created with.
 * SQLite's own ways:
 * - integer, real and text are INTEGER, REAL and TEXT; an `assigned` or `given` one-column
 *   integer key is INTEGER PRIMARY KEY, the rowid itself.
 * - A key-only table is WITHOUT ROWID: its primary key is the table, no row number beside it.
 * - A text-search table is FTS5 (unicode61 without diacritics), keyed by the rowid of the row it
 *   indexes; a trigger deletes its row with that row, as PostgreSQL's foreign key does.
 */
const TYPE = { integer: 'INTEGER', real: 'REAL', text: 'TEXT' } as const;

function column(c: Column): string {
  return `${c.name} ${TYPE[c.type]}${c.primary ? ' PRIMARY KEY' : ''}${constraints(c)}`;
}

function statements(t: Table): string[] {
  if (t.textSearch) {
    const { of } = t.textSearch;
    return [
      `CREATE VIRTUAL TABLE ${t.name} USING fts5(${t.columns.map((c) => c.name).join(', ')}, tokenize = 'unicode61 remove_diacritics 2')`,
      `CREATE TRIGGER ${t.name}_gone AFTER DELETE ON ${of} BEGIN DELETE FROM ${t.name} WHERE rowid = old.id; END`,
    ];
  }
  const create = createTable(t, column) + (t.keyOnly ? ' WITHOUT ROWID' : '');
  return [create, ...(t.indexes ?? []).map((i) => createIndex(t, i, 'sqlite'))];
}

/** Every statement that creates the layout at `version` (the current one by default) in an empty SQLite database. */
export function sqliteSchemaAt(version?: number): string[] {
  return (version === undefined ? tables : tablesAt(version)).flatMap(statements);
}

export const sqliteSchema: readonly string[] = sqliteSchemaAt();

/**
 * What `version` added to the layout, as one migration's SQL: its new tables, then the columns
 * and indexes it added to older ones (tables.ts says which, by `since`).
 */
export function sqliteLayoutStep(version: number): string {
  return stepTo(version, 'sqlite', statements, column).map((statement) => `${statement};\n`).join('');
}
