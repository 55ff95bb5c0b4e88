import type Database from 'better-sqlite3';
import { sqliteOf, type Db } from './db-types.js';
import { beginWrite } from './dialect.js';

/**
 * SQLite lets one process write a file at a time, and its busy handler waits inside the call:
 * the event loop, and with it every progress line, stops until the other writer is done or the
 * wait runs out (then dbError's "locked by another process"). A wait longer than a moment is said
 * first, with when it gives up; the terminal's side decides how (onLockWait).
 */
export const LOCK_WAIT_MS = 30_000;
/** What passes without a word: another command's write, a crawl's group of pages (committed within 1 s). */
const MOMENT_MS = 1_000;

type Heard = (file: string, givesUpAt: number) => void;
let heard: Heard = () => {};

/** Who is told that a command waits for another process's write lock (the CLI prints one line). */
export function onLockWait(f: Heard): void {
  heard = f;
}

const busy = (err: unknown): boolean => String((err as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY');

/** Open a write transaction on SQLite, saying so before a wait past a moment; `waitMs` is the connection's busy timeout. */
export function beginSaying(db: Database.Database, file: string, waitMs = LOCK_WAIT_MS): void {
  db.pragma(`busy_timeout = ${Math.min(MOMENT_MS, waitMs)}`);
  try {
    db.exec('BEGIN IMMEDIATE');
    return;
  } catch (err) {
    if (!busy(err)) throw err;
  } finally {
    db.pragma(`busy_timeout = ${waitMs}`);
  }
  heard(file, Date.now() + waitMs);
  db.exec('BEGIN IMMEDIATE');
}

/** A write transaction: on SQLite said when it waits (beginSaying); PostgreSQL locks rows, not the database. */
export function beginWriting(db: Db): void {
  if (db.kind === 'sqlite') beginSaying(sqliteOf(db), db.name);
  else db.exec(beginWrite(db));
}

/** A command that writes waits its turn at the start, saying so, not silently at its first write. */
export function waitTurnToWrite(db: Database.Database, file: string): void {
  beginSaying(db, file);
  db.exec('ROLLBACK');
}
