import { accessSync, constants, copyFileSync, existsSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { BeebotError } from '../errors.js';

/** What this process may do with a SQLite database file, checked before SQLite opens it. */
export type FileAccess = { kind: 'missing' } | { kind: 'writable' } | { kind: 'read-only'; why: string };

/**
 * A database is writable when its file and its directory are: SQLite creates `-wal`, `-shm` and
 * journals beside it. access(2) answers EROFS on a read-only file system, for root too.
 */
export function fileAccess(file: string): FileAccess {
  if (!existsSync(file)) return { kind: 'missing' };
  const real = realpathSync(file);
  for (const path of [real, dirname(real)]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (err) {
      const code = (err as { code?: string }).code;
      const what = path === real ? 'the file' : `its directory ${path}`;
      return { kind: 'read-only', why: code === 'EROFS' ? 'on a read-only file system' : `cannot write ${what}` };
    }
  }
  return { kind: 'writable' };
}

/**
 * The folder a database file goes in must be there: SQLite creates the file, never its folder, and
 * says only "the directory does not exist". Checked before anything (the lock file, the database)
 * is created, by every command.
 */
export function checkFolder(file: string): void {
  const dir = dirname(resolve(file));
  let isFolder: boolean;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return; // not ours to name: the open says why
    isFolder = false;
  }
  if (!isFolder) throw new BeebotError(`cannot open ${resolve(file)}: the folder ${dir} does not exist`);
}

/** A writer must be able to write the file, or to create it in its directory: one line if not. */
export function checkWritable(file: string): void {
  checkFolder(file);
  const access = fileAccess(file);
  if (access.kind === 'read-only') throw new BeebotError(`database ${file} is read-only (${access.why}); this command writes to it`);
  if (access.kind === 'missing') {
    const dir = dirname(resolve(file));
    try {
      accessSync(dir, constants.W_OK);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
        throw new BeebotError(`cannot create database ${file}: ${dir} is read-only${code === 'EROFS' ? ' (read-only file system)' : ''}`);
      }
    }
  }
}

/** Read commands never create a database. */
export function checkExists(file: string): void {
  checkFolder(file);
  if (!existsSync(file)) throw new BeebotError(`no database here: ${resolve(file)} does not exist (seeds add creates one)`);
}

/**
 * A private copy of a database this process cannot write (with its `-wal`, whose committed pages
 * are part of the database), for when SQLite cannot read it in place: a WAL database at rest has
 * no `-shm`, and a read-only connection cannot create one in a read-only directory (SQLite's
 * `immutable` URI parameter would allow it, but better-sqlite3 is built without URI filenames).
 * The copy lives in the temporary directory until `remove` is called.
 */
export function privateCopy(file: string): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'beebot-read-'));
  const copy = join(dir, 'copy.db');
  try {
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const code = (err as { code?: string }).code;
    throw new BeebotError(`cannot read database ${file}: it is read-only and a copy for reading failed (${code === 'ENOSPC' ? `disk full in ${tmpdir()}` : (code ?? String(err))})`);
  }
  return { file: copy, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A check that the database file is still the one opened: deleted or replaced under a running
 * process, SQLite goes on writing into the unlinked file (and its `-wal`), and everything written
 * after is lost. One stat(2) per call: for a group commit, not for every link.
 */
export function sameFile(file: string): () => void {
  const at = (): { dev: number; ino: number } | null => {
    try {
      const s = statSync(file);
      return { dev: s.dev, ino: s.ino };
    } catch {
      return null;
    }
  };
  const first = at();
  return () => {
    const now = at();
    if (first && (!now || now.dev !== first.dev || now.ino !== first.ino)) {
      throw new BeebotError(`database ${file} was ${now ? 'replaced' : 'deleted'} while in use; stopped (what was written since the last commit is lost)`);
    }
  };
}
