import { createWriteStream, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { Option } from 'commander';
import { BeebotError } from '../errors.js';

/**
 * A failed write as the one line a user reads: a full disk says so (as the crawl does for the
 * database), anything else is "cannot write" with why, when the system said something a user can act on.
 */
export function writeError(err: unknown, file: string): BeebotError {
  const code = (err as { code?: string })?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new BeebotError(`disk full while writing ${file}`);
  const why: Record<string, string> = {
    EROFS: 'read-only file system',
    ENOENT: `the folder ${dirname(file)} does not exist`,
    ENOTDIR: `${dirname(file)} is not a folder`,
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'it is a folder',
  };
  const reason = code !== undefined ? why[code] : undefined;
  return new BeebotError(`cannot write ${file}${reason ? `: ${reason}` : ''}`);
}

/**
 * The file to write beside and rename onto: a symlink's target (a rename replaces the link
 * itself), or null for what is no regular file (/dev/stdout, a pipe, a device: renaming onto it
 * would replace it with a file, even /dev/full as root), which is written in place.
 */
function renameTarget(file: string): string | null {
  try {
    return statSync(file).isFile() ? realpathSync(file) : null;
  } catch {
    return file; // not there yet, or out of sight: the write says why
  }
}

/** Write a whole file beside its target, then rename: a reader never sees half of it. */
export function writeWhole(file: string, text: string): void {
  const target = renameTarget(file);
  if (target === null) {
    try {
      writeFileSync(file, text);
    } catch (err) {
      throw writeError(err, file);
    }
    return;
  }
  const tmp = `${target}.part`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw writeError(err, file);
  }
}

/**
 * The streaming form of writeWhole: `fill` writes into a stream on `<file>.part`, which becomes
 * `file` once it is complete; on any failure the partial file is removed. A failure of the file
 * (it has a system call) is reported as writeError; one of the rows' source (the database) as it is.
 */
export async function streamWhole(file: string, fill: (dest: Writable) => Promise<void>): Promise<void> {
  const target = renameTarget(file);
  const tmp = target === null ? file : `${target}.part`;
  try {
    await fill(createWriteStream(tmp));
    if (target !== null) renameSync(tmp, target);
  } catch (err) {
    if (target !== null) rmSync(tmp, { force: true });
    throw typeof (err as { syscall?: unknown })?.syscall === 'string' ? writeError(err, file) : err;
  }
}

/** The option of every command that writes a file: no closing line saying what it wrote. */
export const quietOption = (): Option => new Option('--quiet', 'no closing line on stderr saying what was written');

/**
 * The one line a command that wrote a file ends with, on stderr (stdout may be the data itself):
 * what it wrote and where, e.g. "wrote 11,224 rows to external.csv". Nothing for '-' (the
 * data went to stdout) or with --quiet.
 */
export function toldWritten(file: string, what: string, quiet: boolean | undefined): void {
  if (file !== '-' && !quiet) process.stderr.write(`wrote ${what} to ${file}\n`);
}
