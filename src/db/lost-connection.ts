import type { Db } from './db-types.js';

/**
 * A database server that goes away for a moment (restarted, failed over) is "not now": the
 * connection is opened again, with back-off, for a bounded time (the setting db-reconnect), and
 * only then is the run given up with one line. SQLite has no server and never loses its file this way.
 */

/** How long a lost PostgreSQL connection is tried again before the run gives up (ms). */
export const RECONNECT_MS = 60_000;

/**
 * A transaction the server dropped: with its connection, or to break a deadlock between workers
 * (40P01) or a serialization failure (40001). Nothing of it was applied, and the connection is
 * open (again) when this is thrown; whoever began the transaction runs it again, whole.
 */
export class TransactionLost extends Error {
  constructor(readonly why: string) {
    super(`the connection was lost during a transaction (${why})`);
    this.name = 'TransactionLost';
  }
}

/** At most this many times is one transaction begun again: a server that drops it every time is not back. */
const MAX_REPLAYS = 20;

/** Run `f`, a transaction with everything it changes in memory, again from its start when its connection was lost. */
export function retryWhole<T>(f: () => T): T {
  for (let n = 1; ; n++) {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof TransactionLost) || n >= MAX_REPLAYS) throw err;
    }
  }
}

/**
 * Whether a failed call means the connection is gone rather than the statement wrong: libpq's
 * transaction status is UNKNOWN (4) on a broken connection; SQLSTATE class 08 (connection
 * exception) and 57P01-57P03 (the server shutting down, crashed, starting up) say it too.
 */
export function connectionLost(transactionStatus: number, sqlState: string): boolean {
  return transactionStatus === 4 || sqlState.startsWith('08') || /^57P0[123]$/.test(sqlState);
}

/** A deadlock the server broke or a serialization failure: the transaction is lost, running it again may pass. */
export const transactionBroken = (sqlState: string): boolean => sqlState === '40P01' || sqlState === '40001';

/** The pauses between attempts to connect again: 100 ms, doubling, at most 2 s. */
export function reconnectPause(attempt: number): number {
  return Math.min(100 * 2 ** attempt, 2_000);
}

/** Block this thread for `ms` (the store's API is synchronous, so waiting for the server is too). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** For how long (ms) a store's lost connection is tried again: a PostgreSQL store only. */
export function keepReconnecting(db: Db, ms: number): void {
  if (db.kind === 'pg') (db as Db & { reconnectMs: number }).reconnectMs = ms;
}

/**
 * A crawl's statements are short: one blocked for `ms` on a server that answers nothing else
 * either means the server is frozen for good, and the process ends (pg/frozen-watch.ts).
 */
export function endIfFrozen(db: Db, ms: number): void {
  if (db.kind === 'pg') (db as Db & { frozenLimitMs: number }).frozenLimitMs = ms;
}
