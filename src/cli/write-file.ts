import { createWriteStream, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { BeebotError } from '../errors.js';

/**
 * A failed write as the one line a user reads: a full disk says so (as the crawl does for the
 * database), anything else is "cannot write".
 */
export function writeError(err: unknown, file: string): BeebotError {
  const code = (err as { code?: string })?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new BeebotError(`disk full while writing ${file}`);
  if (code === 'EROFS') return new BeebotError(`cannot write ${file}: read-only file system`);
  return new BeebotError(`cannot write ${file}`);
}

/** Write a whole file beside its target, then rename: a reader never sees half of it. */
export function writeWhole(file: string, text: string): void {
  const tmp = `${file}.part`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
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
  const tmp = `${file}.part`;
  try {
    await fill(createWriteStream(tmp));
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw typeof (err as { syscall?: unknown })?.syscall === 'string' ? writeError(err, file) : err;
  }
}
