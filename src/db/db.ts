import Database from 'better-sqlite3';
import { BeebotError } from '../errors.js';
import { sqliteOf, type Db } from './db-types.js';
import { fingerprint } from '../url/key-hash.js';
import { openPg } from './pg/open.js';
import { isPostgresUrl } from './pg/url.js';
import { migrations, rewrites } from './migrations.js';
import { sqliteSchema } from './sqlite-schema.js';
import { urlHost } from '../url/host.js';
import { checkExists, checkWritable, fileAccess, privateCopy } from './db-file.js';
import { LOCK_WAIT_MS, waitTurnToWrite } from './write-lock.js';

export type { Db, Statement, RunResult } from './db-types.js';
export { sharedByWorkers, sqliteOf } from './db-types.js';

/**
 * Open (creating if needed, unless `mustExist`) a beebot database: a SQLite file, or a PostgreSQL
 * database given as postgres://user@host:port/dbname (src/db/pg/open.ts).
 */
export function openDb(target: string, opts: { readonly?: boolean; mustExist?: boolean } = {}): Db {
  if (isPostgresUrl(target)) return openPg(target, opts);
  if (target === ':memory:') return openSqlite(target, opts);
  if (opts.mustExist || opts.readonly) checkExists(target);
  if (!opts.readonly) checkWritable(target);
  return openSqlite(target, { ...opts, waitTurn: !opts.readonly });
}

/**
 * Open an existing database for a command that only reads. A file this process can write opens
 * as for a writer (an older schema is migrated); one it cannot write (a read-only directory or
 * file system) is read in place, read-only, and where SQLite cannot do that (see privateCopy) or
 * the schema is older, from a private copy.
 */
export function openDbToRead(target: string): Db {
  if (isPostgresUrl(target)) return openPg(target);
  checkExists(target);
  if (fileAccess(target).kind === 'writable') return openSqlite(target, {});
  try {
    return openSqlite(target, { readonly: true });
  } catch {
    const copy = privateCopy(target);
    try {
      const db = openSqlite(copy.file, {}, target);
      const close = db.close.bind(db);
      return Object.assign(db, {
        close: () => {
          close();
          copy.remove();
        },
      });
    } catch (err) {
      copy.remove();
      throw err;
    }
  }
}

/**
 * WAL lets `status`/`export` read while a crawl writes; synchronous=NORMAL keeps every committed
 * page across a killed process.
 */
function openSqlite(file: string, opts: { readonly?: boolean; waitTurn?: boolean }, shown = file): Db {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
    // A crawl commits a group of pages every second at most; another writer (links delete, seeds add) can
    // only get in between groups, and SQLite's busy handler polls: give it time, under load too.
    db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
    // SQLite's own default page cache (2 MiB). better-sqlite3 is compiled with 16 MB
    // (SQLITE_DEFAULT_CACHE_SIZE=-16000), which a crawl fills as its database grows: 14 MB more
    // resident memory for no measured speed (the OS caches the file; CPU per page unchanged).
    db.pragma('cache_size = -2000');
    checkIntact(db, shown); // before the first write: the switch to WAL, a migration
    // A command that writes: another process writing now is waited for here, said (write-lock.ts).
    if (opts.waitTurn) waitTurnToWrite(db, shown);
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    if (opts.readonly) {
      db.pragma('foreign_keys = ON');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version !== migrations.length) throw new BeebotError(`${shown} is not a beebot database of this version`);
    } else {
      const det = { deterministic: true };
      db.function('beebot_dir', det, (key: unknown) => fingerprint(String(key)).dir);
      db.function('beebot_fp', det, (key: unknown) => fingerprint(String(key)).fp);
      db.function('beebot_key_host', det, (key: unknown) => urlHost(String(key)));
      migrate(db, shown);
    }
  } catch (err) {
    db?.close();
    throw dbError(err, shown);
  }
  // better-sqlite3's Database is the SQLite implementation of Db as it is: only its kind and the
  // session hook (one connection for life: run once) are added.
  return Object.assign(db, { kind: 'sqlite' as const, holdPerSession: (take: () => void) => take() }) as unknown as Db;
}

function migrate(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > migrations.length) {
    throw new BeebotError(`${file} was written by a newer beebot (schema ${version}); upgrade beebot`);
  }
  if (version === 0) {
    // A non-empty file without our version is someone else's database: don't touch it.
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
    if (tables.n > 0) throw new BeebotError(`${file} is not a beebot database`);
    // A new database gets the current layout at once (tables.ts); the migrations are for older ones.
    db.transaction(() => {
      for (const statement of sqliteSchema) db.exec(statement);
      db.pragma(`user_version = ${migrations.length}`);
    })();
    db.pragma('foreign_keys = ON');
    return;
  }
  // Off while a migration's SQL runs: it may rebuild a table, and dropping the old one must not
  // cascade into the tables that point at it (SQLite's documented way to change a table).
  for (let v = version; v < migrations.length; v++) {
    const rewrite = rewrites[v];
    // a rewrite deletes rows the way beebot does, their dependents going with them
    db.pragma(`foreign_keys = ${rewrite ? 'ON' : 'OFF'}`);
    db.transaction(() => {
      db.exec(migrations[v]!);
      rewrite?.(Object.assign(db, { kind: 'sqlite' as const }) as unknown as Db);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length) throw new BeebotError(`${file}: migration to schema ${v + 1} would break ${broken.length} references`);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  db.pragma('foreign_keys = ON');
}

/** Map SQLite failures to one readable line; anything else passes through. */
export function dbError(err: unknown, file: string): unknown {
  const code = (err as { code?: string })?.code ?? '';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new BeebotError(`database ${file} is locked by another process; try again when it is done`);
  }
  if (code === 'SQLITE_CORRUPT') return new BeebotError(corrupt(file));
  if (code === 'SQLITE_NOTADB') return new BeebotError(`${file} is not a beebot database or is corrupt`);
  if (code === 'SQLITE_CANTOPEN') return new BeebotError(`cannot open database ${file}`);
  if (code.startsWith('SQLITE_READONLY')) return new BeebotError(`database ${file} is read-only`);
  if (code === 'SQLITE_FULL') return new BeebotError(`disk full while writing ${file}`);
  return err;
}

/**
 * A damaged SQLite file gets the same answer from every command, before it reads or writes
 * anything: a read that misses the damaged pages would give a partial answer and exit 0, and a
 * crawl would go on adding pages that could all be lost. `quick_check` walks every b-tree page (not
 * the index-to-table agreement integrity_check adds), so it costs what reading the file once does:
 * measured 0.04-0.1 s from the page cache and 0.35 s from disk for 29 MB (320,000 rows), 0.35-0.6 s
 * and 2.1 s for 290 MB (3.2 million rows), 1 ms for the fixture crawl's 400 kB.
 */
function checkIntact(db: Database.Database, file: string): void {
  const problems = db.pragma('quick_check(1)', { simple: true }) as string;
  if (problems === 'ok') return;
  const first = problems.split('\n').find((l) => l.trim() !== '' && !l.startsWith('***')) ?? problems;
  throw new BeebotError(corrupt(file, first.trim()));
}

/** The one line for a damaged database, whichever command finds it and however. */
const corrupt = (file: string, what?: string): string =>
  `database ${file} is corrupt${what ? ` (${what})` : ''}: restore a copy, or recover its rows with sqlite3's .recover`;
