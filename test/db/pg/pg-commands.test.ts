// Every reading command gives the same output on PostgreSQL as on SQLite: the fixture web is
// crawled (and refreshed) into SQLite once, `db copy` puts the same crawl into a real PostgreSQL
// database, and each command runs through the real CLI on both stores. Writing commands run on
// fresh copies of both and must leave equal results. Real CLI, real server, real PostgreSQL.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../../fixtures/server.js';
import { beebot, tempDir } from '../../helpers/cli.js';
import { seedFixture } from '../../helpers/fixture-db.js';
import { createDatabase, startPostgres, type PgCluster } from '../../helpers/postgres.js';

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

/** Run on both stores (or the two given); stdout must be equal, non-empty, and both runs succeed. */
async function same(args: string[], dbs: [string, string] = [sqlite, pgUrl]): Promise<string> {
  const a = await beebot(args, { db: dbs[0] });
  const b = await beebot(args, { db: dbs[1] });
  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(0);
  // status shows a host's pause only while it lasts: one that ends between the two runs is shown once
  const unpaused = (out: string) => (args[0] === 'status' ? out.replace(/, paused until [^,;\n]*/g, '') : out);
  expect(unpaused(b.stdout)).toBe(unpaused(a.stdout));
  expect(a.stdout.trim()).not.toBe('');
  return a.stdout;
}

/** Rows of a --json listing. */
const rows = (json: string) => JSON.parse(json) as Record<string, unknown>[];

/** A command writing `name` on both stores: the two files, the times of writing and the database's name set aside. */
async function sameFile(args: (out: string) => string[], name: string): Promise<string> {
  const outs = [file(name), file(name)];
  for (const [i, db] of [sqlite, pgUrl].entries()) {
    const r = await beebot(args(outs[i]!), { db });
    expect(r.code, r.stderr).toBe(0);
  }
  const [a, b] = outs.map((f) =>
    readFileSync(f, 'utf8')
      .replace(/generated(="| )[0-9TZ:.-]+/g, 'generated$1…')
      .replace(/"generated": "[^"]*"/g, '"generated": "…"')
      .replace(/Database <code>[^<]*<\/code>/, 'Database <code>…</code>'),
  );
  expect(b).toBe(a);
  expect(a!.length).toBeGreaterThan(100);
  return a!;
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
    [['external', '--grep', 'УНИВЕРСИТЕТ']],
    [['external', '--grep', 'Research']],
    [['internal', '--level', '1']],
    [['external', '--new-since', '1d']],
    [['external', '--gone']],
    [['internal', '--gone']],
  ])('links %j', async (args) => {
    await same(['links', ...args, '--json']);
  });

  it('filters select rows on both stores (Cyrillic folded, subdomains matched)', async () => {
    expect(rows(await same(['links', 'external', '--grep', 'УНИВЕРСИТЕТ', '--json'])).length).toBe(4);
    expect(rows(await same(['links', 'external', '--host', 'example.org', '--json'])).length).toBeGreaterThan(0);
    expect(rows(await same(['links', 'internal', '--gone', '--grep', 'thin', '--limit', '2', '--json'])).length).toBeLessThanOrEqual(2);
    const some = rows(await same(['links', 'external', '--host', 'example.org', '--grep', 'www', '--limit', '3', '--json']));
    expect(some.length).toBe(3);
    await same(['links', 'external', '--site', 'HIT', '--grep', 'example', '--level', '1']);
  });

  it('export: CSV and JSON Lines of each kind, the site graph by host and by domain', async () => {
    for (const kind of ['external', 'internal', 'bad']) await same(['export', '-', '--kind', kind]);
    await same(['export', '-', '--kind', 'external', '--grep', 'research', '--site', 'TSU']);
    await sameFile((out) => ['export', out, '--kind', 'internal'], 'internal.jsonl');
    for (const kind of ['edges', 'nodes']) for (const node of ['host', 'domain']) await same(['export', '-', '--kind', kind, '--node', node]);
    expect(await sameFile((out) => ['export', out], 'graph.gexf')).toMatch(/<gexf/);
    expect(await sameFile((out) => ['export', out, '--node', 'domain'], 'graph.graphml')).toMatch(/<graphml/);
  });

  it('report, map and trace', async () => {
    expect(await sameFile((out) => ['report', out], 'report.html')).toMatch(/<html/);
    expect(await sameFile((out) => ['report', out, '--top', '5'], 'top.html')).toMatch(/<html/);
    for (const site of ['TSU', 'HIT', 'SZGU']) {
      await sameFile((out) => ['map', site, out], `${site}.xml`);
      await sameFile((out) => ['map', site, out], `${site}.json`);
    }
    expect(await sameFile((out) => ['map', 'TSU', out], 'map.html')).toMatch(/PageRank/);
    expect(await sameFile((out) => ['trace', 'export', out], 'trace.json')).toMatch(/"pulls"|"sites"/);
  });

  it('hosts, params, seeds, config', async () => {
    expect(rows(await same(['hosts', '--json'])).length).toBeGreaterThan(10);
    await same(['hosts', '--by', 'domain', '--json']);
    expect(rows(await same(['hosts', '--min-sites', '2', '--json'])).length).toBeGreaterThan(0);
    await same(['hosts', '--site', 'SZGU', '--limit', '3']);
    expect(await same(['params', 'list'])).toMatch(/search\.php/);
    expect(await same(['params', 'test', web!.url('thin.test') + 'search.php?x=1&q=2'])).toMatch(/q=2/);
    expect(await same(['seeds', 'list'])).toMatch(/Северо-Западный/);
    await same(['seeds', 'list', '--json']);
    expect(await same(['seeds', 'export', '-'])).toMatch(/^url,name,short,group,scope,include,exclude,sitemaps\r\n.*Северо-Западный/s);
    expect(await sameFile((out) => ['seeds', 'export', out], 'seeds.csv')).toMatch(/^url,/);
    expect(await same(['config', 'get'])).toMatch(/index-text/);
    await same(['config', 'get', '--json']);
  });

  it('search: the same pages match (PostgreSQL ranks with ts_rank: scores and order differ)', async () => {
    for (const query of ['research', 'research OR museums', '"field trips"', 'title:security', 'resea*', 'research NOT museums', 'университет']) {
      const urls = async (db: string) => {
        const r = await beebot(['search', query, '--limit', '1000', '--json'], { db });
        expect(r.code, r.stderr).toBe(0);
        return rows(r.stdout).map((h) => h.url as string).sort();
      };
      const a = await urls(sqlite);
      expect(await urls(pgUrl), query).toEqual(a);
      if (query !== 'университет') expect(a.length, query).toBeGreaterThan(0);
    }
  });

  it('check: internal links, and external ones against the fixture server', async () => {
    // exit 1 when invalid links were found, in either store alike
    const [ca, cb] = [await beebot(['check', 'TSU', '--no-external'], { db: sqlite }), await beebot(['check', 'TSU', '--no-external'], { db: pgUrl })];
    expect(ca.stdout).toMatch(/^kind\turl\tstatus/);
    expect([cb.code, cb.stdout]).toEqual([ca.code, ca.stdout]);
    expect(ca.code, ca.stderr).toBe(ca.stdout.trim().split('\n').length > 1 ? 1 : 0);
    // external URLs: each store checks and caches them itself; the times of checking set aside
    const checked = async (db: string) => {
      const r = await beebot(['check', 'TRF', '--json', '--max', '2', '--delay', '0', ...web!.resolveArgs()], { db });
      expect(r.code, r.stderr).toBe(rows(r.stdout).length > 0 ? 1 : 0);
      return rows(r.stdout).map(({ checked_at: _, ...rest }) => rest);
    };
    const a = await checked(sqlite);
    expect(a.length).toBeGreaterThan(0);
    expect(await checked(pgUrl)).toEqual(a);
  }, 120_000);

  it('simulate replays the crawl of either store', async () => {
    const replay = async (trace: string) => {
      const r = await beebot(['simulate', '--trace', trace, '--budget', '50', '--json'], { db: join(tmp.dir, 'unused.db') });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const a = await replay(sqlite);
    expect(JSON.stringify(a)).toMatch(/gittins/);
    expect(await replay(pgUrl)).toEqual(a);
  });

  it('links delete --dry-run shows the same plan', async () => {
    expect(await same(['links', 'delete', 'external', '--grep', 'УНИВЕРСИТЕТ', '--dry-run'])).toMatch(/Санкт-Петербургский/);
    await same(['links', 'delete', 'internal', '--site', 'TSU', '--level', '3', '--dry-run']);
  });
});

describe('writing commands leave equal results on both stores', () => {
  let dbs: [string, string];
  beforeAll(async () => {
    const copy = join(tmp.dir, 'writes.db');
    copyFileSync(sqlite, copy);
    dbs = [copy, await pgCopyOf(sqlite)];
  }, 60_000);
  const both = async (args: string[]) => {
    for (const db of dbs) {
      const r = await beebot(args, { db });
      expect(r.code, `${db}: ${r.stderr}`).toBe(0);
    }
  };

  // seeds add and import write through insertSites, which the crawl's port to PostgreSQL covers
  it('seeds remove', async () => {
    await both(['seeds', 'remove', 'TRF', '--yes']);
    const list = rows(await same(['seeds', 'list', '--json'], dbs));
    expect(list.map((s) => s.short)).toEqual(['TSU', 'HIT', 'DOB', 'SZGU']);
    await same(['status', '--json'], dbs);
  });

  it('links delete with a filter', async () => {
    const before = rows(await same(['links', 'external', '--json'], dbs)).length;
    await both(['links', 'delete', 'external', '--grep', 'УНИВЕРСИТЕТ', '--yes']);
    await both(['links', 'delete', 'internal', '--site', 'HIT', '--host', 'hubs.test', '--yes']);
    const after = rows(await same(['links', 'external', '--json'], dbs)).length;
    expect(after).toBeLessThan(before);
    await same(['links', 'internal', '--json'], dbs);
  });

  it('config set and params set/remove', async () => {
    await both(['config', 'set', 'max-level', '3']);
    await both(['config', 'set', 'reward', 'hosts']);
    await both(['params', 'set', 'HIT', '/find', 'page', 'optional', '1']);
    await both(['params', 'remove', 'TSU', '/search.php']);
    expect(await same(['config', 'get', 'max-level'], dbs)).toMatch(/3/);
    expect(await same(['params', 'list'], dbs)).toMatch(/find/);
    expect(await same(['status'], dbs)).toMatch(/the scheduler counts outside hosts new to each site \(--reward hosts\)/);
  });
});

describe('errors on PostgreSQL stay one readable line', () => {
  it('a server that is not there: exit 1, one line', async () => {
    const r = await beebot(['status'], { db: 'postgres://nobody@127.0.0.1:1/x' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^beebot: cannot connect to PostgreSQL at postgres:\/\/nobody@127\.0\.0\.1:1\/x: .*\n$/);
  });

  it('a search query it cannot read is a usage error', async () => {
    const r = await beebot(['search', 'research OR'], { db: pgUrl });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^beebot: cannot read the query 'research OR'\n$/);
  });
});
