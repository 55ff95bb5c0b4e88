// Every reading command gives the same output on PostgreSQL as on SQLite: the fixture web is
// crawled (and refreshed) into SQLite once, `db copy` puts the same crawl into a real PostgreSQL
// database, and each command runs through the real CLI on both stores. Writing commands run on
// fresh copies of both and must leave equal results. Real CLI, real server, real PostgreSQL.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../fixtures/server.js';
import { beebot, tempDir } from './helpers/cli.js';
import { seedFixture } from './helpers/fixture-db.js';
import { createDatabase, startPostgres, type PgCluster } from './helpers/postgres.js';

const tmp = tempDir();
let web: FixtureWeb | undefined;
let cluster: PgCluster | undefined;
const sqlite = join(tmp.dir, 'crawl.db');
let pgUrl = '';
let n = 0;
const file = (name: string) => join(tmp.dir, `${++n}-${name}`);

/** A fresh PostgreSQL database holding a copy of `from`. */
async function pgCopyOf(from: string): Promise<string> {
  const url = await createDatabase(cluster!);
  const r = await beebot(['db', 'copy', from, url], { db: join(tmp.dir, 'unused.db') });
  expect(r.code, r.stderr).toBe(0);
  return url;
}

beforeAll(async () => {
  cluster = await startPostgres();
  web = await startFixtureWeb();
  await seedFixture(web, tmp.dir, sqlite);
  expect((await beebot(['config', 'set', 'index-text', 'yes'], { db: sqlite })).code).toBe(0);
  expect((await beebot(['params', 'set', 'TSU', '/search.php', 'q', 'required'], { db: sqlite })).code).toBe(0);
  const crawl = await beebot(['crawl', '--delay', '0', '--concurrency', '4', ...web.resolveArgs()], { db: sqlite });
  expect(crawl.code, crawl.stderr).toBe(0);
  const refresh = await beebot(['refresh', '--budget-time', '1h', '--delay', '0', ...web.resolveArgs()], { db: sqlite });
  expect(refresh.code, refresh.stderr).toBe(0);
  pgUrl = await pgCopyOf(sqlite);
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
  await web?.close();
  tmp.cleanup();
});

/** Run on both stores; stdout must be equal, non-empty, and both runs succeed. */
async function same(args: string[]): Promise<string> {
  const a = await beebot(args, { db: sqlite });
  const b = await beebot(args, { db: pgUrl });
  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(0);
  expect(b.stdout).toBe(a.stdout);
  expect(a.stdout.trim()).not.toBe('');
  return a.stdout;
}

describe('reading commands: the same output on SQLite and PostgreSQL', () => {
  it('status', async () => {
    expect(await same(['status'])).toMatch(/TSU/);
    const json = JSON.parse(await same(['status', '--json'])) as { sites: unknown[] };
    expect(json.sites.length).toBe(5);
  });

  it.each([
    ['external'], ['internal'], ['bad'],
  ])('links %s', async (kind) => {
    await same(['links', kind, '--json']);
  });

  it.each([
    [['external', '--site', 'TSU']],
    [['external', '--site', 'SZGU']],
    [['external', '--host', 'org']],
    [['external', '--grep', 'ПАРТНЁР']],
    [['external', '--grep', 'Research']],
    [['internal', '--level', '1']],
    [['external', '--new-since', '1d']],
    [['external', '--gone']],
    [['internal', '--gone']],
  ])('links %j', async (args) => {
    await same(['links', ...args, '--json']);
  });
});
