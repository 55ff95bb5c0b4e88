import { afterAll, beforeAll } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { tempDir } from './cli.js';

/** The fixture web and a temporary directory for the enclosing describe (or file): started before its tests, removed after. */
export function withFixtureWeb(): { web: FixtureWeb; tmp: ReturnType<typeof tempDir> } {
  const fx = {} as { web: FixtureWeb; tmp: ReturnType<typeof tempDir> };
  beforeAll(async () => {
    fx.web = await startFixtureWeb();
    fx.tmp = tempDir();
  });
  afterAll(async () => {
    await fx.web?.close();
    fx.tmp?.cleanup();
  });
  return fx;
}
