import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FixtureWeb } from '../../fixtures/server.js';
import { fixtureSeeds } from '../../fixtures/web.js';
import { beebot } from './cli.js';

/** The fixture site's id in a database seeded by seedFixture (ids follow fixtureSeeds order). */
export const fixtureSiteId = (host: string): number => fixtureSeeds.findIndex((s) => s.host === host) + 1;

/** Add every fixture site (with names, short names and groups) to a new database through the CLI. */
export async function seedFixture(web: FixtureWeb, dir: string, db: string): Promise<void> {
  const csv = ['url,name,short,group', ...fixtureSeeds.map((s) => `${web.url(s.host)},"${s.name}",${s.short},${s.group}`)].join('\n');
  const file = join(dir, `seeds-${Date.now()}-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(file, csv);
  const r = await beebot(['seeds', 'import', file], { db });
  expect(r.code, r.stderr).toBe(0);
}

/** Seed the fixture web and crawl it to exhaustion (about a second) with the real CLI. */
export async function crawlFixture(web: FixtureWeb, dir: string, db: string, ...args: string[]): Promise<void> {
  await seedFixture(web, dir, db);
  const r = await beebot(['crawl', '--delay', '0', '--concurrency', '4', ...args, ...web.resolveArgs()], { db });
  expect(r.code, r.stderr).toBe(0);
}
