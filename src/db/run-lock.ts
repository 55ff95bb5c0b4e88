import { BeebotError } from '../errors.js';
import type { Db } from './db-types.js';

// Two refreshes (or a refresh and a watch) on one PostgreSQL database would resume the same open
// iteration and check the same pages: a session advisory lock, held until the connection closes.
const RUN_LOCK = 0x6265_6572_7266; // 'berrf'

/**
 * PostgreSQL: hold the run lock of a refresh or watch for as long as the run lives, or fail with
 * `busyMessage`. The lock goes with its connection: a connection opened again after a lost one
 * takes it again first, and fails the run with `busyMessage` if another run took it meanwhile.
 * SQLite needs none: the crawl lock file (cli/crawl-lock.ts) does it.
 */
export function holdPgRunLock(db: Db, busyMessage: string): void {
  if (db.kind !== 'pg') return;
  db.holdPerSession(() => {
    if (!db.prepare('SELECT pg_try_advisory_lock(?)').pluck().get(RUN_LOCK)) throw new BeebotError(busyMessage);
  });
}

/**
 * Run `fn` (a read and the write it decides, such as max + 1) as one step among processes:
 * PostgreSQL, in a transaction holding the advisory lock `key` until it ends, as two workers could
 * both read first; SQLite has one writer at a time, so `fn` runs as it is.
 */
export function oneAtATime<T>(db: Db, key: number, fn: () => T): T {
  if (db.kind === 'sqlite') return fn();
  return db.transaction(() => {
    db.prepare('SELECT pg_advisory_xact_lock(?)').get(key);
    return fn();
  })();
}
