import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * The data we are given beside the checkout (`../shared`: the peer test suites under testdata/,
 * the replay web's server): not ours to copy into the repository (the chardet corpus is not
 * openly licensed). BEEBOT_SHARED names another place. A test that needs it and finds nothing
 * fails with one line saying where it looked, not with a file's ENOENT.
 */
export function shared(path: string): URL {
  const base = process.env.BEEBOT_SHARED ? pathToFileURL(`${process.env.BEEBOT_SHARED.replace(/\/$/, '')}/`) : new URL('../../../shared/', import.meta.url);
  if (!existsSync(base)) {
    throw new Error(`this test reads the shared test data, not found at ${base.pathname}: clone beebot next to shared/, or set BEEBOT_SHARED to its folder`);
  }
  return new URL(path, base);
}
