import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { BeebotError } from '../errors.js';

/** Write a whole file beside its target, then rename: a reader never sees half of it. */
export function writeWhole(file: string, text: string): void {
  const tmp = `${file}.part`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
    throw new BeebotError(`cannot write ${file}`);
  }
}
