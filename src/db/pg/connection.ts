import { createRequire } from 'node:module';
import { BeebotError } from '../../errors.js';
import type { Db, RunResult, Statement } from '../db-types.js';
import { countDbWait } from '../db-wait.js';
import { connectionLost, RECONNECT_MS, reconnectPause, retryWhole, sleepSync, transactionBroken, TransactionLost } from '../lost-connection.js';
import { FrozenWatch } from './frozen-watch.js';
import { toPositional } from './placeholders.js';

/**
 * The PostgreSQL side of the store's one interface (db-types.ts), over libpq's synchronous calls
 * (the `libpq` binding that node-postgres's native mode is built on). Synchronous on purpose: the
 * store, the crawl and every command are written against better-sqlite3's synchronous API, which
 * keeps SQLite at full speed (no promise per query on the per-link path); a loopback round trip
 * here is about 0.05–0.1 ms, and a page's writes go in one transaction of a group commit.
 */

interface PQ {
  connectSync(url: string): void;
  errorMessage(): string;
  exec(sql: string): void;
  execParams(sql: string, params: (string | null)[]): void;
  prepare(name: string, sql: string, n: number): void;
  execPrepared(name: string, params: (string | null)[]): void;
  resultStatus(): string;
  resultErrorMessage(): string;
  resultErrorFields(): { sqlState?: string; messagePrimary?: string } | null;
  ntuples(): number;
  nfields(): number;
  fname(i: number): string;
  ftype(i: number): number;
  getvalue(row: number, col: number): string;
  getisnull(row: number, col: number): boolean;
  cmdTuples(): string;
  transactionStatus(): number;
  finish(): void;
}

let PQClass: (new () => PQ) | undefined;
function loadLibpq(): new () => PQ {
  if (!PQClass) {
    try {
      PQClass = createRequire(import.meta.url)('libpq') as new () => PQ;
    } catch {
      throw new BeebotError('PostgreSQL support needs the libpq binding: install libpq-dev (apt install libpq-dev), then run npm rebuild libpq');
    }
  }
  return PQClass;
}

/** A PostgreSQL error with its SQLSTATE (e.g. 23505 unique violation, 40P01 deadlock). */
export class PgError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'PgError';
  }
}

type Value = unknown;

/** SQLite binds numbers, strings, bigints, buffers and null: the same values go to PostgreSQL as text. */
function param(v: Value): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Buffer.isBuffer(v)) return '\\x' + v.toString('hex');
  throw new TypeError(`cannot bind a ${typeof v} to a PostgreSQL parameter`);
}

/** Each connection's settings: a new one after a lost connection gets them again. */
const SESSION = "SET client_min_messages = warning; SET TIME ZONE 'UTC'";

const INT8 = 20, INT2 = 21, INT4 = 23, OID = 26, FLOAT4 = 700, FLOAT8 = 701, NUMERIC = 1700, BOOL = 16, BYTEA = 17;

/** Values as better-sqlite3 gives them: integers and floats as numbers, booleans as 1/0. */
function parser(type: number, big: boolean): (s: string) => unknown {
  switch (type) {
    case INT8:
      return big ? (s) => BigInt(s) : Number;
    case INT2: case INT4: case OID: case FLOAT4: case FLOAT8: case NUMERIC:
      return big && type !== FLOAT4 && type !== FLOAT8 && type !== NUMERIC ? (s) => BigInt(s) : Number;
    case BOOL:
      return (s) => (s === 't' ? 1 : 0);
    case BYTEA:
      return (s) => Buffer.from(s.slice(2), 'hex');
    default:
      return (s) => s;
  }
}

export class PgDb implements Db {
  readonly kind = 'pg' as const;
  private pq: PQ;
  private prepared = new Map<string, string>(); // positional SQL → server-side statement name
  private depth = 0; // savepoints open
  private open = true;
  /** For how long a lost connection is tried again (ms; the setting db-reconnect). */
  reconnectMs = RECONNECT_MS;
  /** A server frozen for good ends the process (frozen-watch.ts): armed by a crawl, whose statements are short. */
  private frozen: FrozenWatch;
  /** Set when the server stayed away past reconnectMs: every later call fails with it at once. */
  private gone: BeebotError | null = null;
  /** What a session holds on the server and a new connection must take again (advisory locks: run-lock.ts). */
  private renewals: (() => void)[] = [];

  constructor(readonly name: string, private url: string) {
    this.frozen = new FrozenWatch(name, url);
    const PQ = loadLibpq();
    this.pq = new PQ();
    try {
      this.pq.connectSync(url); // on failure it closes the connection and throws libpq's message
    } catch (err) {
      throw new BeebotError(`cannot connect to PostgreSQL at ${name}: ${firstLine((err as Error).message) || 'connection failed'}`);
    }
    this.exec(SESSION);
  }

  /** A call blocked this long on a server that answers nothing else either ends the process (0: never). */
  set frozenLimitMs(ms: number) {
    this.frozen.limitMs = ms;
  }

  /** From the server's own status, so a BEGIN sent with exec() (group-commit.ts) counts too. */
  get inTransaction(): boolean {
    if (this.gone) return false;
    const s = this.pq.transactionStatus();
    return s === 2 || s === 3; // PQTRANS_INTRANS, PQTRANS_INERROR
  }

  prepare(sql: string): Statement {
    return new PgStatement(this, toPositional(sql));
  }

  exec(sql: string): void {
    if (/^\s*COMMIT\s*;?\s*$/i.test(sql) && this.inTransaction) return this.commit();
    this.call(() => {
      this.pq.exec(sql);
      this.check();
    });
  }

  /**
   * COMMIT, whose answer can be lost with the connection after the server committed (an ambiguous
   * commit): running the transaction again would then apply it twice (a page's pull logged twice,
   * its site's statistics counted twice). So the transaction's id is read first, and when the
   * answer is lost the new connection asks the server what became of it (txid_status): committed,
   * the commit stands; otherwise TransactionLost, and the transaction is run again whole.
   */
  private commit(): void {
    const xid = this.prepare('SELECT txid_current_if_assigned()::text').pluck().get() as string | null;
    try {
      this.call(() => {
        this.pq.exec('COMMIT');
        this.check();
      });
    } catch (err) {
      if (!(err instanceof TransactionLost) || xid === null) throw err; // nothing written: nothing to find out
      if (this.landed(xid)) return;
      throw err;
    }
  }

  /** Whether transaction `xid` committed; one whose commit is still under way is waited for, up to reconnectMs. */
  private landed(xid: string): boolean {
    const status = this.prepare('SELECT txid_status(?::bigint)').pluck();
    const until = performance.now() + this.reconnectMs;
    for (let attempt = 0; ; attempt++) {
      const s = status.get(xid) as string | null;
      if (s !== 'in progress') return s === 'committed';
      if (performance.now() >= until) throw new BeebotError(`PostgreSQL at ${this.name}: a commit whose answer was lost was still under way after ${within(this.reconnectMs)} (transaction ${xid})`);
      sleepSync(reconnectPause(attempt));
    }
  }

  /**
   * Run `take` now and again on every new connection after a lost one, before anything else runs
   * there: what a session holds (an advisory lock) goes with its connection. A BeebotError from it
   * (the lock taken by another process meanwhile) ends the run: every later call fails with it.
   */
  holdPerSession(take: () => void): void {
    take();
    this.renewals.push(take);
  }

  /** Runs `sql` with `params`; the statement is prepared on the server once per connection. */
  query(sql: string, params: (string | null)[]): PQ {
    this.call(() => {
      let name = this.prepared.get(sql);
      if (name === undefined) {
        name = `b${this.prepared.size + 1}`;
        this.pq.prepare(name, sql, params.length);
        this.check(sql);
        this.prepared.set(sql, name);
      }
      this.pq.execPrepared(name, params);
      this.check(sql);
    });
    return this.pq;
  }

  /**
   * One call to the server, its time counted as a database wait (db-wait.ts). When the connection
   * is lost, it is opened again (reconnect); a statement outside a transaction then runs again, a
   * statement inside one throws TransactionLost: the server dropped the transaction, and its
   * beginning is not here.
   */
  private call(f: () => void): void {
    if (this.gone) throw this.gone;
    const t0 = performance.now();
    try {
      for (;;) {
        const inTransaction = this.inTransaction;
        try {
          this.frozen.begin();
          return f();
        } catch (err) {
          this.frozen.end();
          if (!(err instanceof PgError)) throw err;
          if (inTransaction && transactionBroken(err.code)) {
            this.pq.exec('ROLLBACK'); // the server aborted it: none of it stays
            throw new TransactionLost(err.message);
          }
          if (!connectionLost(this.pq.transactionStatus(), err.code)) throw err;
          this.reconnect(err.message);
          if (inTransaction) throw new TransactionLost(err.message);
        }
      }
    } finally {
      this.frozen.end();
      countDbWait(performance.now() - t0);
    }
  }

  /** A new connection, tried with back-off for reconnectMs; then the run gives up with one line. */
  private reconnect(why: string): void {
    this.retire(this.pq);
    this.prepared.clear();
    this.depth = 0;
    const PQ = loadLibpq();
    const until = performance.now() + this.reconnectMs;
    let last = why.replace(/ \(in: .*$/, '');
    for (let attempt = 0; ; attempt++) {
      const left = until - performance.now();
      if (left <= 0) {
        this.open = false; // its connection is closed already
        const within = this.reconnectMs % 1000 === 0 ? `${this.reconnectMs / 1000} s` : `${this.reconnectMs} ms`;
        this.gone = new BeebotError(`lost the connection to PostgreSQL at ${this.name} and could not connect again within ${within} (${last})`);
        throw this.gone;
      }
      sleepSync(Math.min(reconnectPause(attempt), left));
      const pq = new PQ();
      try {
        this.frozen.begin();
        pq.connectSync(this.url);
      } catch (err) {
        last = firstLine((err as Error).message) || 'connection failed';
        continue;
      } finally {
        this.frozen.end();
      }
      this.pq = pq;
      try {
        this.frozen.begin();
        this.pq.exec(SESSION);
        this.check();
      } catch (err) {
        last = (err as Error).message;
        this.retire(pq);
        continue;
      } finally {
        this.frozen.end();
      }
      try {
        for (const take of this.renewals) take();
      } catch (err) {
        // not taken again: the run cannot go on as it was (another refresh took the lock meanwhile)
        if (this.open) this.retire(this.pq);
        this.open = false;
        this.gone = err instanceof BeebotError ? err : new BeebotError(`PostgreSQL at ${this.name}: connected again, but ${(err as Error).message}`);
        throw this.gone;
      }
      return;
    }
  }

  /**
   * Close a connection. The binding's finish() closes its socket watcher with uv_close, which
   * completes on the event loop's next turn, and lets the object be collected at once: collected
   * before that (several opens and closes in one synchronous run, as a test's reads do), its memory
   * is reused while libuv still holds the watcher and the process aborts (uv__finish_close
   * assertion). Hold it until a timer, which runs after the turn's closing handles.
   */
  private retire(pq: PQ): void {
    pq.finish();
    setTimeout(() => void pq, 0).unref();
  }

  /** Rows the last INSERT/UPDATE/DELETE touched (SQLite's `changes`). */
  affected(): number {
    return Number(this.pq.cmdTuples()) || 0;
  }

  private check(sql?: string): void {
    const status = this.pq.resultStatus();
    if (status === 'PGRES_FATAL_ERROR' || status === 'PGRES_BAD_RESPONSE' || status === 'PGRES_NONFATAL_ERROR') {
      const fields = this.pq.resultErrorFields();
      const msg = fields?.messagePrimary ?? (firstLine(this.pq.resultErrorMessage()) || firstLine(this.pq.errorMessage()));
      throw new PgError(sql ? `${msg} (in: ${sql.replace(/\s+/g, ' ').slice(0, 200)})` : msg, fields?.sqlState ?? '');
    }
  }

  /**
   * better-sqlite3's transaction(): the returned function runs fn in BEGIN … COMMIT (ROLLBACK on
   * a throw), nested calls in a savepoint. `.immediate` is the same: PostgreSQL's row locks
   * replace SQLite's database-wide write lock. A transaction the server dropped with its
   * connection runs again whole; a nested one leaves that to the transaction around it.
   */
  transaction<F extends (...args: never[]) => unknown>(fn: F): F & { immediate: F; deferred: F; exclusive: F } {
    const once = (...args: never[]) => {
      const outer = !this.inTransaction;
      const savepoint = `sp${this.depth}`;
      this.exec(outer ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
      if (!outer) this.depth++;
      try {
        const out = fn(...args);
        if (!outer) this.depth--;
        this.exec(outer ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`);
        return out;
      } catch (err) {
        if (err instanceof TransactionLost) throw err; // nothing left to roll back: the server dropped it
        if (!outer) this.depth--;
        try {
          this.exec(outer ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}`);
        } catch {
          /* the connection is gone: the server rolls back on its own */
        }
        throw err;
      }
    };
    const run = ((...args: never[]) => (this.inTransaction ? once(...args) : retryWhole(() => once(...args)))) as F;
    return Object.assign(run, { immediate: run, deferred: run, exclusive: run });
  }

  close(): void {
    this.frozen.stop();
    if (!this.open) return;
    this.open = false;
    this.retire(this.pq);
  }
}

const within = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** libpq's messages go on over indented lines ("This probably means…"): the first says it. */
const firstLine = (text: string): string => text.trim().split('\n')[0]!.replace(/^(FATAL|ERROR):\s+/, '');

class PgStatement implements Statement {
  private mode: 'object' | 'raw' | 'pluck' = 'object';
  private big = false;

  constructor(private db: PgDb, private sql: { text: string; names: string[] | null; count: number }) {}

  pluck(on = true): this {
    this.mode = on ? 'pluck' : 'object';
    return this;
  }

  raw(on = true): this {
    this.mode = on ? 'raw' : 'object';
    return this;
  }

  safeIntegers(on = true): this {
    this.big = on;
    return this;
  }

  private bind(args: Value[]): (string | null)[] {
    const { names, count } = this.sql;
    if (names) {
      const obj = (args[0] ?? {}) as Record<string, Value>;
      return names.map((n) => {
        if (!(n in obj)) throw new RangeError(`missing named parameter "${n}"`);
        return param(obj[n]);
      });
    }
    // as better-sqlite3: an object of named values binds nothing to a statement without names
    if (count === 0 && args.length === 1 && args[0] !== null && typeof args[0] === 'object' && !Array.isArray(args[0])) return [];
    const flat = args.length === 1 && Array.isArray(args[0]) ? (args[0] as Value[]) : args;
    if (flat.length !== count) throw new RangeError(`too ${flat.length < count ? 'few' : 'many'} parameter values were provided`);
    return flat.map(param);
  }

  private rows(args: Value[]): unknown[] {
    const pq = this.db.query(this.sql.text, this.bind(args));
    const n = pq.ntuples();
    const f = pq.nfields();
    const parse = Array.from({ length: f }, (_, j) => parser(pq.ftype(j), this.big));
    const value = (i: number, j: number) => (pq.getisnull(i, j) ? null : parse[j]!(pq.getvalue(i, j)));
    const out = new Array<unknown>(n);
    if (this.mode === 'pluck') {
      for (let i = 0; i < n; i++) out[i] = value(i, 0);
    } else if (this.mode === 'raw') {
      for (let i = 0; i < n; i++) {
        const row = new Array<unknown>(f);
        for (let j = 0; j < f; j++) row[j] = value(i, j);
        out[i] = row;
      }
    } else {
      const names = Array.from({ length: f }, (_, j) => pq.fname(j));
      for (let i = 0; i < n; i++) {
        const row: Record<string, unknown> = {};
        for (let j = 0; j < f; j++) row[names[j]!] = value(i, j);
        out[i] = row;
      }
    }
    return out;
  }

  run(...args: Value[]): RunResult {
    const rows = this.rows(args);
    const changes = this.db.affected();
    // RETURNING id: the id of the row written, as SQLite's lastInsertRowid
    const first = rows[0];
    const id = first === undefined ? 0 : this.mode === 'object' ? Object.values(first as object)[0] : this.mode === 'raw' ? (first as unknown[])[0] : first;
    return { changes, lastInsertRowid: typeof id === 'number' || typeof id === 'bigint' ? id : 0 };
  }

  get(...args: Value[]): unknown {
    return this.rows(args)[0];
  }

  all(...args: Value[]): unknown[] {
    return this.rows(args);
  }

  iterate(...args: Value[]): IterableIterator<unknown> {
    return this.rows(args)[Symbol.iterator]();
  }
}
