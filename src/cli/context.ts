import type { Command } from 'commander';
import { openDb, dbError, type Db } from '../db/db.js';

/** The database named by the global --db option (or BEEBOT_DB). */
export function dbPath(cmd: Command): string {
  return (cmd.optsWithGlobals() as { db: string }).db;
}

/** Open the database, run fn, close it; SQLite failures become one-line errors. */
export async function withDb<T>(cmd: Command, fn: (db: Db) => T | Promise<T>): Promise<T> {
  const file = dbPath(cmd);
  const db = openDb(file);
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
