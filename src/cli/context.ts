import type { Command } from 'commander';
import { openDb, openDbToRead, dbError, type Db } from '../db/db.js';
import { onLockWait } from '../db/write-lock.js';
import { clockTime } from '../net/waiting.js';

/** The database named by the global --db option (or BEEBOT_DB). */
export function dbPath(cmd: Command): string {
  return (cmd.optsWithGlobals() as { db: string }).db;
}

/**
 * Open the database for a command that writes to it, run fn, close it; SQLite failures become
 * one-line errors. It is created if missing, unless `mustExist` (a command that edits what is there).
 */
export async function withDb<T>(cmd: Command, fn: (db: Db) => T | Promise<T>, opts: { mustExist?: boolean } = {}): Promise<T> {
  onLockWait(sayLockWait);
  return using(dbPath(cmd), openDb(dbPath(cmd), opts), fn);
}

/** What a write that waits for another process's lock on the file says first (db/write-lock.ts). */
export const lockWaitLine = (file: string, givesUpAt: number): string =>
  `waiting for ${file}: another process is writing to it; gives up at ${clockTime(givesUpAt, Date.now())}`;

/** The lock wait as a line of its own; a command with a live display shows it there instead (crawl, refresh). */
export function sayLockWait(file: string, givesUpAt: number): void {
  process.stderr.write(`${lockWaitLine(file, givesUpAt)}\n`);
}

/** withDb for a command that only reads: it never creates a database, and reads one it cannot write. */
export async function withReadDb<T>(cmd: Command, fn: (db: Db) => T | Promise<T>): Promise<T> {
  return using(dbPath(cmd), openDbToRead(dbPath(cmd)), fn);
}

async function using<T>(file: string, db: Db, fn: (db: Db) => T | Promise<T>): Promise<T> {
  try {
    return await fn(db);
  } catch (err) {
    throw dbError(err, file);
  } finally {
    db.close();
  }
}

/** Whether stdout is a terminal (tables, colour) or a pipe (plain lines). */
export const isTty = (): boolean => Boolean(process.stdout.isTTY);

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
