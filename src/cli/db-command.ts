import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { copyDatabase } from '../db/copy/copy.js';
import { isPostgresUrl } from '../db/pg/url.js';
import { isTty } from './context.js';
import { formatTable } from './table.js';

/** A `<from>`/`<to>` argument: a SQLite file path or a postgres://user@host:port/dbname URL. */
function checkEnd(what: string, s: string): string {
  if (s.trim() === '') throw new UsageError(`${what}: empty; give a SQLite file or a postgres:// URL`);
  if (isPostgresUrl(s)) {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw new UsageError(`${what}: not a valid PostgreSQL URL (postgres://user@host:port/dbname)`);
    }
    if (!u.hostname || u.pathname.replace(/^\//, '') === '') throw new UsageError(`${what}: a PostgreSQL URL needs a host and a database name (postgres://user@host:port/dbname)`);
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    throw new UsageError(`${what}: unknown kind of database '${s.split(':')[0]}' (a SQLite file or a postgres:// URL)`);
  }
  return s;
}

export function dbCommand(): Command {
  const db = new Command('db').description('whole-database operations: copy a crawl between SQLite and PostgreSQL');

  db.command('copy <from> <to>')
    .description('copy the whole crawl (every table, every row, ids kept) from <from> to <to>, each a SQLite file or a postgres://user@host:port/dbname URL; <to> must be a new file or an empty database')
    .option('--batch-rows <n>', 'rows per read and per INSERT (at most 1000, fewer when a PostgreSQL statement would pass 65535 parameters)', '1000')
    .addHelpText(
      'after',
      `
The source is only read, in one snapshot (a crawl may keep running on it). The target is
created (SQLite: a new file; PostgreSQL: the beebot tables in a database that has none) and
filled in one transaction: if anything fails, nothing is left there. Ignores --db.

Examples:
  beebot db copy crawl.db postgres://beebot@db.example:5432/crawl
  beebot db copy postgres://beebot@db.example:5432/crawl back.db`,
    )
    .action(async (from: string, to: string, opts: { batchRows: string }) => {
      const batchRows = Number(opts.batchRows);
      if (!Number.isInteger(batchRows) || batchRows < 1) throw new UsageError(`--batch-rows: expected a whole number of at least 1, got '${opts.batchRows}'`);
      checkEnd('<from>', from);
      checkEnd('<to>', to);
      if (from === to) throw new UsageError('<from> and <to> are the same database');
      const summary = await copyDatabase(from, to, { batchRows });
      process.stdout.write(formatTable(['table', 'rows'], summary.tables.map((t) => [t.table, t.rows]), isTty()));
      process.stdout.write(`copied ${summary.rows} rows from ${summary.from} to ${summary.to} in ${summary.seconds.toFixed(2)} s\n`);
    });
  return db;
}
