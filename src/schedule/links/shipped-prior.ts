import { existsSync, readFileSync } from 'node:fs';
import { priorFromFile } from './cue-prior-file.js';
import { VALUE_DEFAULTS, type ValueParams } from './link-value.js';
import type { CuePrior } from './model.js';

/**
 * The cue prior shipped with beebot: data/cue-prior.json at the package's root, built by
 * scripts/cue-prior.ts from the replay web's page graph. Found upwards from here, as this file runs
 * from src/ (the tests) or dist/src/.
 */
export const SHIPPED_PRIOR: URL = (() => {
  for (const up of ['../../../', '../../../../']) {
    const u = new URL(`${up}data/cue-prior.json`, import.meta.url);
    if (existsSync(u)) return u;
  }
  return new URL('../../../../data/cue-prior.json', import.meta.url);
})();

let cached: CuePrior | undefined;

/** Read once per process: a crawl and its replay learn from the same prior. */
export function shippedPrior(): CuePrior {
  return (cached ??= priorFromFile(readFileSync(SHIPPED_PRIOR, 'utf8')));
}

/** `--order value` as shipped: the constants chosen on the replay web (link-value.ts) and the shipped prior. */
export function shippedValue(): ValueParams {
  return { ...VALUE_DEFAULTS, prior: shippedPrior() };
}
