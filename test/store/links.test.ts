// Integration: `links`, `links delete` and `hosts` on a crawled fixture database (real CLI, real HTTP on
// loopback, real SQLite), a crawl resumed after deletions, and a crawl running while links are read and deleted.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureFacts } from '../../fixtures/web.js';
import { PullWriter } from '../../src/store/pull-writer.js';
import type { PullResult } from '../../src/pull/pull-record.js';
import { openDb } from '../../src/db/db.js';
import { noFilter, parseSince } from '../../src/store/link-filter.js';
import { hostMatches, urlHost } from '../../src/url/host.js';
import { deleteLinks } from '../../src/store/links.js';
import { migrations } from '../../src/db/migrations.js';
import { insertSites } from '../../src/store/sites.js';
import { urlKey } from '../../src/url/url.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { crawlFixture, fixtureSiteId, seedFixture } from '../helpers/fixture-db.js';

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;
let db: string; // the fixture web crawled to exhaustion; tests here only read it
let n = 0;
const newDb = () => join(tmp.dir, `links-${++n}.db`);

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  db = newDb();
  await crawlFixture(web, tmp.dir, db);
});
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

function query<T>(file: string, sql: string, ...args: unknown[]): T[] {
  const d = new Database(file, { readonly: true });
  try {
    return d.prepare(sql).all(...args) as T[];
  } finally {
    d.close();
  }
}
const scalar = (file: string, sql: string, ...args: unknown[]) => Object.values(query<Record<string, number>>(file, sql, ...args)[0]!)[0]!;
const json = async (args: string[], file = db) => {
  const r = await beebot([...args, '--json'], { db: file });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
};
const hostOf = (u: unknown) => new URL(String(u)).hostname;
const oneLineError = (stderr: string) => {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^beebot: /);
};

describe('help', () => {
  const commands = [['links'], ['links', 'external'], ['links', 'internal'], ['links', 'bad'], ['links', 'delete'], ['hosts']];
  it.each(commands.map((c) => [c.join(' '), c]))('%s --help exits 0 with usage', async (_name, cmd) => {
    const r = await beebot([...(cmd as string[]), '--help'], { db: newDb() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: beebot/);
  });
});

describe('links', () => {
  it('prints every external link as tab-separated lines with a header when piped', async () => {
    const r = await beebot(['links', 'external'], { db });
    expect(r.code).toBe(0);
    const lines = r.stdout.replace(/\n$/, '').split('\n'); // the last column (gone_at) is empty: keep its tab
    expect(lines[0]).toBe('site_id\tsite\tsource_url\tsource_level\turl\tanchor_text\trel\ttag\tfound_at\tlast_seen\tgone_at');
    expect(lines.length - 1).toBe(scalar(db, 'SELECT count(*) FROM external_links'));
    expect(lines.slice(1).every((l) => l.split('\t').length === 11)).toBe(true);
  });

  it('prints JSON with --json, in storage order, with the time each link was found', async () => {
    const rows = await json(['links', 'external']);
    const stored = query<{ url: string; found_at: string }>(db, 'SELECT url, found_at FROM external_links ORDER BY id');
    expect(rows.map((r) => r.url)).toEqual(stored.map((s) => s.url));
    const period = query<{ first: string; last: string }>(db, 'SELECT min(at) AS first, max(at) AS last FROM fetches')[0]!;
    for (const r of rows) {
      expect(String(r.found_at) >= period.first && String(r.found_at) <= period.last).toBe(true);
    }
  });

  it('filters by site, host (with subdomains), level and --limit', async () => {
    const bySite = await json(['links', 'external', '--site', 'SZGU']);
    expect(bySite.length).toBe(scalar(db, 'SELECT count(*) FROM external_links WHERE site_id = ?', fixtureSiteId('cyr.test')));
    expect(bySite.every((r) => r.site === 'SZGU')).toBe(true);

    const byHost = await json(['links', 'external', '--host', 'EXAMPLE.org']);
    const expected = query<{ url: string }>(db, 'SELECT url FROM external_links').filter((r) => /(^|\.)example\.org$/.test(hostOf(r.url)));
    expect(byHost.length).toBe(expected.length);
    expect(new Set(byHost.map((r) => hostOf(r.url)))).toEqual(new Set(['www.example.org', 'doi.example.org']));

    const level3 = await json(['links', 'external', '--level', '3']);
    expect(level3.length).toBe(scalar(db, 'SELECT count(*) FROM external_links WHERE level = 3'));
    expect(level3.length).toBeGreaterThan(0);
    expect(level3.every((r) => r.source_level === 3)).toBe(true);

    expect(await json(['links', 'external', '--limit', '4'])).toHaveLength(4);

    const deep = await json(['links', 'internal', '--site', 'TSU', '--level', '6']);
    expect(deep.length).toBe(fixtureFacts.pagesBeyondMaxLevelByHost['thin.test']);
    expect(deep.every((r) => r.status === 'queued')).toBe(true);
  });

  it('--grep matches URLs and anchor texts ignoring case, Cyrillic included', async () => {
    const sample = fixtureFacts.samples.encodedPages[0]!;
    const rows = await json(['links', 'external', '--grep', sample.externalAnchorText.toLowerCase()]);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => String(r.anchor_text).toLowerCase().includes(sample.externalAnchorText.toLowerCase()))).toBe(true);
    const byUrl = await json(['links', 'external', '--grep', 'PARTNER-3']);
    expect(byUrl.length).toBe(scalar(db, "SELECT count(*) FROM external_links WHERE url LIKE '%partner-3%' OR anchor LIKE '%partner-3%'"));
    const bad = await json(['links', 'bad', '--grep', 'MAILTO:']);
    expect(bad.map((r) => r.raw_href)).toEqual(['mailto:priemnaya@cyr.test']);
  });

  it('--since takes ISO times and ages', async () => {
    const times = query<{ found_at: string }>(db, 'SELECT found_at FROM external_links ORDER BY found_at').map((r) => r.found_at);
    const middle = times[Math.floor(times.length / 2)]!;
    const since = await json(['links', 'external', '--since', middle]);
    expect(since.length).toBe(times.filter((t) => t >= middle).length);
    expect(since.length).toBeLessThan(times.length);
    expect(await json(['links', 'external', '--since', '1h'])).toHaveLength(times.length);
    expect(await json(['links', 'external', '--since', '2999-01-01'])).toHaveLength(0);
    // internal links include the start pages, found when their site was added
    expect(await json(['links', 'internal', '--since', '10m'])).toHaveLength(scalar(db, 'SELECT count(*) FROM pages'));
  });

  it('rejects bad filters with one line and exit 2', async () => {
    for (const args of [
      ['links', 'external', '--level', 'x'],
      ['links', 'external', '--since', 'last tuesday'],
      ['links', 'external', '--since', '2024-02-31'],
      ['links', 'external', '--limit', '0'],
      ['links', 'bad', '--host', 'example.org'],
      ['links', 'external', '--site', 'nope'],
      ['links', 'nope'],
    ]) {
      const r = await beebot(args, { db });
      expect(r.code, args.join(' ')).toBe(2);
      if (args[1] !== 'nope') oneLineError(r.stderr);
    }
  });
});

describe('hosts', () => {
  it('lists the companion set: hosts with pair and linking-site counts, most shared first', async () => {
    const rows = await json(['hosts']);
    const hosts = new Map<string, { links: number; sites: Set<number> }>();
    for (const r of query<{ url: string; site_id: number }>(db, 'SELECT url, site_id FROM external_links')) {
      const h = hosts.get(hostOf(r.url)) ?? { links: 0, sites: new Set() };
      h.links++;
      h.sites.add(r.site_id);
      hosts.set(hostOf(r.url), h);
    }
    expect(rows.length).toBe(hosts.size);
    for (const r of rows) {
      const h = hosts.get(String(r.host))!;
      expect(r, String(r.host)).toMatchObject({ pairs: h.links, sites: h.sites.size, target_site_id: null });
    }
    const order = rows.map((r) => [-Number(r.sites), -Number(r.pairs), String(r.host)] as const);
    const sorted = [...order].sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : 1));
    expect(order).toEqual(sorted);
    expect(rows[0]).toMatchObject({ host: 'www.example.org', domain: 'example.org' });

    const shared = await json(['hosts', '--min-sites', '2']);
    expect(shared.map((r) => r.host).sort()).toEqual(fixtureFacts.companionHosts);
  });

  it('groups by registrable domain, filters by site, and prints TSV when piped', async () => {
    const domains = await json(['hosts', '--by', 'domain']);
    const org = domains.find((d) => d.domain === 'example.org')!;
    expect(org.hosts).toBeGreaterThanOrEqual(2);
    expect(org.pairs).toBe(scalar(db, "SELECT count(*) FROM external_links WHERE url LIKE 'https://www.example.org/%' OR url LIKE 'https://doi.example.org/%'"));

    const tiny = await json(['hosts', '--site', 'TRF']);
    expect(tiny).toEqual([expect.objectContaining({ host: 'www.example.org', pairs: 1, sites: 1 })]);

    const r = await beebot(['hosts', '--limit', '3'], { db });
    expect(r.stdout.replace(/\n$/, '').split('\n')).toEqual([
      'host\tdomain\tsites\tpairs\tpages\ttarget_site',
      ...((await json(['hosts', '--limit', '3'])).map((x) => `${x.host}\t${x.domain}\t${x.sites}\t${x.pairs}\t${x.pages}\t`)),
    ]);
  });
});

describe('links delete', () => {
  it('needs a filter, shows what it would delete, and refuses without --yes off a terminal', async () => {
    const file = newDb();
    await crawlFixture(web, tmp.dir, file);
    const before = scalar(file, 'SELECT count(*) FROM external_links');
    const all = await beebot(['links', 'delete', 'external'], { db: file });
    expect(all.code).toBe(2);
    oneLineError(all.stderr);

    const target = scalar(file, "SELECT count(*) FROM external_links WHERE url LIKE 'https://doi.example.org/%'");
    const refused = await beebot(['links', 'delete', 'external', '--host', 'doi.example.org'], { db: file });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(`${target} external links to delete`);
    expect(refused.stdout).toContain('https://doi.example.org/');
    expect(refused.stderr).toMatch(/nothing deleted \(pass --yes/);
    const dry = await beebot(['links', 'delete', 'external', '--host', 'doi.example.org', '--dry-run'], { db: file });
    expect(dry.code).toBe(0);
    expect(scalar(file, 'SELECT count(*) FROM external_links')).toBe(before);

    const done = await beebot(['links', 'delete', 'external', '--host', 'doi.example.org', '--yes'], { db: file });
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`deleted ${target} external links`);
    expect(scalar(file, 'SELECT count(*) FROM external_links')).toBe(before - target);
    expect(await json(['links', 'external', '--host', 'doi.example.org'], file)).toHaveLength(0);
    expect(query(file, "SELECT site_id, key FROM deleted_links WHERE kind = 'external'").length).toBe(
      scalar(db, "SELECT count(DISTINCT site_id || ' ' || key) FROM external_links WHERE url LIKE 'https://doi.example.org/%'"),
    );

    const bad = await beebot(['links', 'delete', 'bad', '--grep', 'javascript:', '--yes'], { db: file });
    expect(bad.stdout).toContain('deleted 1 bad link');
    expect((await json(['links', 'bad'], file)).map((r) => r.reason).sort()).toEqual(['mailto', 'tel']);
  });

  it('deletes only unfetched internal pages and keeps fetched ones', async () => {
    const file = newDb();
    await crawlFixture(web, tmp.dir, file);
    const queued = scalar(file, "SELECT count(*) FROM pages WHERE site_id = ? AND status = 'queued'", fixtureSiteId('thin.test'));
    const fetched = scalar(file, "SELECT count(*) FROM pages WHERE site_id = ? AND status != 'queued'", fixtureSiteId('thin.test'));
    const r = await beebot(['links', 'delete', 'internal', '--site', 'TSU', '--all', '--yes'], { db: file });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${queued} internal links to delete; ${fetched} matching fetched or start pages are kept`);
    expect(scalar(file, "SELECT count(*) FROM pages WHERE site_id = ? AND status = 'queued'", fixtureSiteId('thin.test'))).toBe(0);
    expect(scalar(file, 'SELECT count(*) FROM pages WHERE site_id = ?', fixtureSiteId('thin.test'))).toBe(fetched);
    const again = await beebot(['links', 'delete', 'internal', '--site', 'TSU', '--all', '--yes'], { db: file });
    expect(again.stdout).toContain('0 internal links to delete');
  });

  it('a resumed crawl does not store deleted links again', async () => {
    const file = newDb();
    await beebot(['seeds', 'add', web.url('thin.test'), '--short', 'TSU'], { db: file });
    const crawl = (...args: string[]) => beebot(['crawl', '--delay', '0', '--concurrency', '1', ...args, ...web.resolveArgs()], { db: file });
    expect((await crawl('--budget', '25')).code).toBe(0);
    expect((await beebot(['links', 'delete', 'external', '--host', 'example.org', '--yes'], { db: file })).code).toBe(0);
    expect((await beebot(['links', 'delete', 'internal', '--grep', '/news/', '--yes'], { db: file })).code).toBe(0);
    const gone = query<{ kind: string; key: string }>(file, 'SELECT kind, key FROM deleted_links');
    expect(gone.filter((g) => g.kind === 'external').length).toBeGreaterThan(0);
    expect(gone.filter((g) => g.kind === 'internal').length).toBeGreaterThan(0);

    const resumed = await crawl('--budget', 'none');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('every site exhausted');
    const externalKeys = new Set(query<{ key: string }>(file, 'SELECT key FROM external_links').map((r) => r.key));
    const pageKeys = new Set(query<{ key: string }>(file, 'SELECT key FROM pages').map((r) => r.key));
    for (const g of gone) expect(g.kind === 'external' ? externalKeys.has(g.key) : pageKeys.has(g.key), g.key).toBe(false);
    // the crawl went on past the deletions: pages were fetched after them, and other external links were stored
    expect(scalar(file, 'SELECT count(*) FROM fetches')).toBeGreaterThan(25);
    expect(externalKeys.size).toBeGreaterThan(0);
  });

  it('works while a crawl runs: reads and deletes external links, refuses to delete pages', async () => {
    const file = newDb();
    await seedFixture(web, tmp.dir, file);
    const run = beebot(['crawl', '--delay', '400', '--concurrency', '2', ...web.resolveArgs()], { db: file });
    let pulls = 0;
    const started = new Promise<void>((resolve) => {
      run.child.stderr!.on('data', (d: string | Buffer) => {
        pulls += String(d).split('\n').length - 1;
        if (pulls >= 10) resolve();
      });
    });
    await started;
    // pages are committed in groups (every second at most): wait for the first group, not a fixed time
    let listed = await json(['links', 'external'], file);
    for (let i = 0; i < 50 && listed.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = await json(['links', 'external'], file);
    }
    expect(listed.length).toBeGreaterThan(0);
    const del = await beebot(['links', 'delete', 'external', '--host', 'www.example.org', '--yes'], { db: file });
    expect(del.code, del.stderr).toBe(0);
    const pages = await beebot(['links', 'delete', 'internal', '--all', '--yes'], { db: file });
    expect(pages.code).toBe(1);
    expect(pages.stderr).toMatch(/^beebot: a crawl \(pid \d+\) is running on .*: stop it before deleting internal links/);
    run.child.kill('SIGINT');
    const stopped = await run;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).not.toMatch(/unexpected error/);

    const resumed = await beebot(['crawl', '--delay', '0', ...web.resolveArgs()], { db: file });
    expect(resumed.code).toBe(0);
    const gone = query<{ site_id: number; key: string }>(file, "SELECT site_id, key FROM deleted_links WHERE kind = 'external'");
    expect(gone.length).toBeGreaterThan(0);
    for (const g of gone) {
      expect(scalar(file, 'SELECT count(*) FROM external_links WHERE site_id = ? AND key = ?', g.site_id, g.key), g.key).toBe(0);
    }
  });
});

describe('store', () => {
  const page = (id: number, url: string) => ({ id, siteId: 1, url, level: 0 });
  const pull = (p: ReturnType<typeof page>, external: string[], internal: string[] = []): PullResult => ({
    page: p, final: null, status: 'done', httpStatus: 200, contentType: 'text/html', bytes: 1, encoding: 'utf-8',
    encodingSource: 'meta', error: null, hops: [], ms: 1, retries: 0, note: null, unavailable: null,
    links: { internal: internal.map((u) => ({ url: u, key: urlKey(new URL(u), 'standard') })), external: external.map((u) => ({ url: u, key: urlKey(new URL(u), 'standard'), host: new URL(u).hostname, anchor: '', rel: '', tag: 'a' })), bad: [] },
  });

  it('PullWriter skips tombstoned links unless allowReadd, and records when links were found', () => {
    const file = newDb();
    const d = openDb(file);
    try {
      insertSites(d, [{ url: new URL('https://a.example/') }], 'standard');
      const w = new PullWriter(d);
      expect(w.commit(pull(page(1, 'https://a.example/'), ['https://x.example/', 'https://y.example/'], ['https://a.example/b', 'https://a.example/c'])).reward).toBe(2);
      expect(deleteLinks(d, 'external', { ...noFilter, grep: 'x.example' })).toBe(1);
      expect(deleteLinks(d, 'internal', { ...noFilter, grep: '/c' })).toBe(1);
      const b = d.prepare('SELECT id FROM pages WHERE key = ?').pluck().get('http://a.example/b') as number;
      // page b links to the deleted URLs again: they stay out, and bring no reward
      expect(w.commit(pull({ ...page(b, 'https://a.example/b'), level: 1 }, ['https://x.example/', 'https://z.example/'], ['https://a.example/c'])).reward).toBe(1);
      expect(d.prepare('SELECT key FROM external_links ORDER BY id').pluck().all()).toEqual(['http://y.example/', 'http://z.example/']);
      expect(d.prepare("SELECT count(*) FROM pages WHERE key = 'http://a.example/c'").pluck().get()).toBe(0);

      const readd = new PullWriter(d, { allowReadd: true });
      const c = d.prepare("SELECT id FROM pages WHERE key = 'http://a.example/'").pluck().get() as number;
      d.prepare("UPDATE pages SET status = 'queued' WHERE id = ?").run(c);
      expect(readd.commit(pull(page(c, 'https://a.example/'), ['https://x.example/'], ['https://a.example/c'])).reward).toBe(1);
      expect(d.prepare("SELECT count(*) FROM pages WHERE key = 'http://a.example/c'").pluck().get()).toBe(1);
      const found = d.prepare('SELECT found_at FROM external_links').pluck().all() as string[];
      const at = d.prepare('SELECT at FROM fetches').pluck().all() as string[];
      expect(found.every((f) => at.includes(f))).toBe(true);
    } finally {
      d.close();
    }
  });

  it('upgrades a database of schema 1: found times come from the pull log', async () => {
    const file = newDb();
    const old = new Database(file);
    old.exec(migrations[0]!);
    old.pragma('user_version = 1');
    old.exec(`
      INSERT INTO sites (id, url, added_at) VALUES (1, 'https://a.example/', '2024-01-01T00:00:00.000Z');
      INSERT INTO pages (id, site_id, key, url, level, status) VALUES (1, 1, 'https://a.example/', 'https://a.example/', 0, 'done');
      INSERT INTO pages (id, site_id, key, url, level, found_on) VALUES (2, 1, 'https://a.example/b', 'https://a.example/b', 1, 1);
      INSERT INTO fetches (site_id, page_id, reward, ms, at) VALUES (1, 1, 1, 5, '2024-01-02T03:04:05.000Z');
      INSERT INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag) VALUES (1, 1, 'https://x.example/', 'https://x.example/', 0, 'X', '', 'a');
      INSERT INTO bad_links (site_id, page_id, raw, reason) VALUES (1, 1, 'mailto:a@a.example', 'mailto');
    `);
    old.close();
    expect((await json(['links', 'external'], file))[0]).toMatchObject({ url: 'https://x.example/', found_at: '2024-01-02T03:04:05.000Z' });
    expect((await json(['links', 'bad'], file))[0]).toMatchObject({ found_at: '2024-01-02T03:04:05.000Z' });
    expect((await json(['links', 'internal'], file)).map((r) => r.found_at)).toEqual(['2024-01-01T00:00:00.000Z', '2024-01-02T03:04:05.000Z']);
    expect(await json(['links', 'external', '--since', '2024-01-02T04:00Z'], file)).toHaveLength(0);
  });
});

describe('filter rules (pure)', () => {
  const now = new Date('2024-05-10T12:00:00.000Z');
  it('--since: ages, ISO dates and times (local without an offset), nothing else', () => {
    expect(parseSince('10m', now)).toBe('2024-05-10T11:50:00.000Z');
    expect(parseSince('2h', now)).toBe('2024-05-10T10:00:00.000Z');
    expect(parseSince('1d', now)).toBe('2024-05-09T12:00:00.000Z');
    expect(parseSince('1w', now)).toBe('2024-05-03T12:00:00.000Z');
    expect(parseSince('2024-05-01T14:30Z', now)).toBe('2024-05-01T14:30:00.000Z');
    expect(parseSince('2024-05-01T14:30:05.5+02:00', now)).toBe('2024-05-01T12:30:05.500Z');
    expect(parseSince('2024-05-01', now)).toBe(new Date(2024, 4, 1).toISOString());
    expect(parseSince('2024-05-01 14:30', now)).toBe(new Date(2024, 4, 1, 14, 30).toISOString());
    for (const bad of ['', '10', 'm10', '10 minutes', '2024-13-01', '2024-02-30', '2024-02-30T10:00Z', '2024-05-01T25:00', 'yesterday']) {
      expect(() => parseSince(bad, now), bad).toThrow(/--since/);
    }
  });

  it('reads the host of stored URLs and matches subdomains', () => {
    expect(urlHost('https://user:pw@www.Example.org:8080/a?b#c')).toBe('www.example.org');
    expect(urlHost('http://[::1]:80/')).toBe('[::1]');
    expect(urlHost('https://xn--80abucjiibhv9a.xn--p1ai/')).toBe('xn--80abucjiibhv9a.xn--p1ai');
    expect(urlHost('mailto:a@b.example')).toBeNull();
    expect(hostMatches('doi.example.org', 'example.org')).toBe(true);
    expect(hostMatches('badexample.org', 'example.org')).toBe(false);
  });
});
