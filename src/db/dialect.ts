import type { Db } from './db-types.js';

/**
 * Where SQLite's and PostgreSQL's SQL part ways, named: each fragment takes the store (or its
 * kind) and returns SQL text, so the code that writes a query says what it means once and the
 * choice of spelling is made here only. Where a whole query or algorithm differs, `byStore`
 * picks one of a named pair.
 */
export type DbKind = Db['kind'];
type Of = Db | DbKind;
const kindOf = (db: Of): DbKind => (typeof db === 'string' ? db : db.kind);

/** One of a named pair: the SQLite and the PostgreSQL form of a query, a table of queries or an algorithm. */
export function byStore<T>(db: Of, pair: { sqlite: T; pg: T }): T {
  return pair[kindOf(db)];
}

/**
 * The statement that opens a write transaction. SQLite: IMMEDIATE takes the write lock now, waiting
 * (busy_timeout) for another writer to finish, instead of failing when a read inside would have
 * to be upgraded. PostgreSQL locks rows, not the database: a plain BEGIN.
 */
export const beginWrite = (db: Of): string => (kindOf(db) === 'pg' ? 'BEGIN' : 'BEGIN IMMEDIATE');

/** An insert that skips a row breaking a unique key: `${insertIgnore(db)} INTO t … ${onConflictIgnore(db)}`. */
export const insertIgnore = (db: Of): string => (kindOf(db) === 'pg' ? 'INSERT' : 'INSERT OR IGNORE');
/** The end of an insertIgnore statement (with its leading space, or nothing). */
export const onConflictIgnore = (db: Of): string => (kindOf(db) === 'pg' ? ' ON CONFLICT DO NOTHING' : '');

/** An insert that replaces the row with the same unique key: `${replaceInto(db)} INTO t … ${onConflictReplace(db, key, columns)}`. */
export const replaceInto = (db: Of): string => (kindOf(db) === 'pg' ? 'INSERT' : 'INSERT OR REPLACE');
/** The end of a replaceInto statement: PostgreSQL updates `columns` of the row whose `key` (a column list) conflicts. */
export const onConflictReplace = (db: Of, key: string, columns: readonly string[]): string =>
  kindOf(db) === 'pg' ? ` ON CONFLICT (${key}) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}` : '';

/**
 * The new row's `column` as the statement's `lastInsertRowid` (with its leading space, or
 * nothing): SQLite reports the rowid by itself, PostgreSQL reads it from RETURNING.
 */
export const returning = (db: Of, column: string): string => (kindOf(db) === 'pg' ? ` RETURNING ${column}` : '');

/** The larger of the values (SQLite's scalar max, PostgreSQL's greatest). */
export const greatest = (db: Of, ...values: string[]): string => `${kindOf(db) === 'pg' ? 'greatest' : 'max'}(${values.join(', ')})`;
/** The smaller of the values (SQLite's scalar min, PostgreSQL's least). */
export const least = (db: Of, ...values: string[]): string => `${kindOf(db) === 'pg' ? 'least' : 'min'}(${values.join(', ')})`;

/** Where `part` first occurs in `text`, from 1; 0 when it does not (instr, strpos). */
export const textPosition = (db: Of, text: string, part: string): string => `${kindOf(db) === 'pg' ? 'strpos' : 'instr'}(${text}, ${part})`;

/** A newline character as an SQL expression (char(10), chr(10)). */
export const newline = (db: Of): string => (kindOf(db) === 'pg' ? 'chr(10)' : 'char(10)');

/**
 * A parameter (`?`, `@name`) with its type: PostgreSQL cannot infer the type of a parameter that is
 * only tested for NULL, concatenated, or sits in a SELECT list; SQLite has no need (and no `::`).
 */
export const typed = (db: Of, param: string, type: string): string => (kindOf(db) === 'pg' ? `${param}::${type}` : param);

/** The rows that pass `condition`, counted in an aggregate (SQLite sums booleans, PostgreSQL filters). */
export const countWhere = (db: Of, condition: string): string =>
  kindOf(db) === 'pg' ? `count(*) FILTER (WHERE ${condition})` : `sum(${condition})`;

/** `column` ordered by its bytes, as SQLite orders text (PostgreSQL: the C collation). */
export const binaryOrder = (db: Of, column: string): string => (kindOf(db) === 'pg' ? `${column} COLLATE "C"` : column);

/**
 * The elements of a JSON array parameter (`?`, `@name`) as one column of rows, for `IN (…)`:
 * text, or bigint for ids. One array parameter instead of a statement per list length.
 */
export function jsonValues(db: Of, param: string, type: 'text' | 'bigint'): string {
  if (kindOf(db) === 'sqlite') return `SELECT value FROM json_each(${param})`;
  return `SELECT value${type === 'bigint' ? '::bigint' : ''} FROM jsonb_array_elements_text(${param}::jsonb)`;
}

/** `column IN` the ids of a JSON array parameter (`?` or `@name`). */
export const inJsonIds = (db: Of, column: string, param: string): string => `${column} IN (${jsonValues(db, param, 'bigint')})`;

/**
 * Whether SQL on this store can call beebot's JavaScript functions (beebot_host, beebot_domain,
 * beebot_icontains…; url-functions.ts): SQLite runs in this process, PostgreSQL does not, so there
 * the rows come to JavaScript to be tested or grouped.
 */
export const callsJavaScript = (db: Of): boolean => kindOf(db) === 'sqlite';
