import { closeSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BeebotError } from '../errors.js';
import { isPostgresUrl } from '../db/pg/url.js';
import { checkExists, checkFolder } from '../db/db-file.js';

/**
 * Hold `<db>.lock`, the file `beebot crawl` holds while it runs (same format: the holder's pid), so
 * a command that edits the frontier and a crawl never overlap: the crawl caches its next page per
 * site and would write links for a page that no longer exists. A lock left by a dead process is taken over.
 * The lock sits beside the database's real file, so a symbolic link to it (or another spelling of its
 * path) takes the same lock.
 */
export function holdCrawlLock(db: string, busyMessage: (pid: number) => string): () => void {
  checkFolder(db);
  const file = `${realPath(db)}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') throw new BeebotError(`cannot create lock file ${file}: ${dirname(file)} is read-only`);
      if (code !== 'EEXIST') throw new BeebotError(`cannot create lock file ${file}`);
      const pid = Number(readFileSync(file, 'utf8'));
      if (pid && alive(pid)) throw new BeebotError(busyMessage(pid));
      unlinkSync(file);
    }
  }
  throw new BeebotError(`cannot lock ${db}`);
}

/** The file's real path; for a file not yet created, its directory's real path and its name. */
function realPath(db: string): string {
  try {
    return realpathSync(db);
  } catch {
    try {
      return join(realpathSync(dirname(db)), basename(db));
    } catch {
      return db;
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/**
 * SQLite: the crawl lock file, so a refresh or watch and a crawl never overlap. PostgreSQL has no
 * lock file (every crawl there is a worker of one shared crawl, crawl-command.ts): refresh and
 * watch take holdPgRunLock (db/run-lock.ts) once connected.
 */
export function holdRunLock(db: string, busyMessage: (pid: number) => string, opts: { mustExist?: boolean } = {}): () => void {
  if (isPostgresUrl(db)) return () => {};
  // A command that edits what is there says a database is missing before it locks: two of them
  // started at once on none would otherwise meet each other's lock instead.
  if (opts.mustExist) checkExists(db);
  return holdCrawlLock(db, busyMessage);
}
