import type Database from 'better-sqlite3';

/**
 * The store's one interface, implemented twice: by better-sqlite3's Database itself (SQLite, the
 * default: a file, nothing to install) and by PgDb (src/db/pg/connection.ts: PostgreSQL, one
 * crawl shared by many workers). It is the part of better-sqlite3's synchronous API the store
 * uses, so the SQLite side costs nothing extra. Where the two spell SQL differently, the named
 * fragments of dialect.ts say it.
 */
export interface RunResult {
  changes: number;
  /** SQLite: the rowid inserted. PostgreSQL: the first column of a RETURNING clause (write one). */
  lastInsertRowid: number | bigint;
}

export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** rows as their first column's value */
  pluck(on?: boolean): this;
  /** rows as arrays */
  raw(on?: boolean): this;
  /** 64-bit integers as BigInt */
  safeIntegers(on?: boolean): this;
}

export interface Db {
  readonly kind: 'sqlite' | 'pg';
  /** the file, or the PostgreSQL URL without its password */
  readonly name: string;
  readonly inTransaction: boolean;
  prepare(sql: string): Statement;
  exec(sql: string): void;
  transaction<F extends (...args: never[]) => unknown>(fn: F): F & { immediate: F; deferred: F; exclusive: F };
  /**
   * Run `take` now, and again first thing on every new connection (what a session holds, such
   * as an advisory lock, goes with its connection). SQLite keeps one connection for life.
   */
  holdPerSession(take: () => void): void;
  close(): void;
}

/** The better-sqlite3 handle behind a SQLite store, for what only SQLite has (pragmas, JS functions). */
export function sqliteOf(db: Db): Database.Database {
  if (db.kind !== 'sqlite') throw new Error('a SQLite-only operation was called on a PostgreSQL store');
  return db as unknown as Database.Database;
}

/**
 * Whether several crawl processes may work on this store at once, each a worker of one shared
 * crawl (PostgreSQL); a SQLite file has one crawl process, held by its lock file.
 */
export const sharedByWorkers = (db: Db): boolean => db.kind === 'pg';
