// Integration: the real CLI crawls the fixture web (real HTTP on loopback) into a real SQLite file.
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureFacts, fixtureSeeds } from '../../fixtures/web.js';
import { urlKey } from '../../src/url/url.js';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;
let db: string;
let crawlRun: CliResult;
let sql: Database.Database;
const facts = fixtureFacts;

const siteId = (host: string) => fixtureSeeds.findIndex((s) => s.host === host) + 1;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  db = join(tmp.dir, 'crawl.db');
  const csv = ['url,name,short,group', ...fixtureSeeds.map((s) => `${web.url(s.host)},"${s.name}",${s.short},${s.group}`)].join('\n');
  writeFileSync(join(tmp.dir, 'seeds.csv'), csv);
  const imported = await beebot(['seeds', 'import', join(tmp.dir, 'seeds.csv')], { db });
  expect(imported.stdout).toContain(`added ${fixtureSeeds.length}, skipped 0`);
  crawlRun = await beebot(['crawl', '--delay', '0', '--concurrency', '4', ...web.resolveArgs()], { db });
  sql = new Database(db, { readonly: true });
});

afterAll(async () => {
  sql?.close();
  await web?.close();
  tmp?.cleanup();
});

const key = (host: string, path: string) => urlKey(new URL(web.url(host, path)), 'standard');
const page = (host: string, path: string) =>
  sql.prepare('SELECT * FROM pages WHERE site_id = ? AND key = ?').get(siteId(host), key(host, path)) as
    | { id: number; level: number; status: string; note: string | null }
    | undefined;
const fetchOf = (host: string, path: string) =>
  sql.prepare('SELECT f.* FROM fetches f JOIN pages p ON p.id = f.page_id WHERE p.key = ?').get(key(host, path)) as Record<string, unknown>;

describe('a full crawl of the fixture web', () => {
  it('finishes with exit 0 and a summary', () => {
    expect(crawlRun.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(crawlRun.code).toBe(0);
    // SZGU's page that resets the connection waits (DOB is not available): 'exhausted' only of a site with nothing left
    expect(crawlRun.stdout).toMatch(/^stopped: no site has a page to fetch in this run: 3 exhausted, 1 waiting; the 2 pages left are accounted for below$/m);
  });

  it('reports every site in status --json: down.test not available, cyr.test with its reset page waiting, the others exhausted', async () => {
    const r = await beebot(['status', '--json'], { db });
    expect(r.code).toBe(0);
    const st = JSON.parse(r.stdout);
    for (const seed of fixtureSeeds) {
      const s = st.sites.find((x: { id: number }) => x.id === siteId(seed.host));
      const waiting = facts.resetByHost[seed.host]?.length ?? 0; // a reset may pass: retried by the next run
      if (facts.availableByHost[seed.host]) {
        expect(s.state, seed.host).toBe(waiting ? 'crawling' : 'exhausted');
        expect(s.frontier).toBe(waiting);
      } else {
        expect(s.state).toBe('not-available');
        expect(s.reason).toMatch(/503/);
      }
    }
    expect(st.budget_used).toBe(st.totals.pages_fetched);
  });

  it('fetches exactly the HTML pages up to max level 5 and stores deeper ones unfetched', () => {
    for (const host of facts.seedHosts) {
      const done = sql.prepare("SELECT count(*) FROM pages WHERE site_id = ? AND status = 'done'").pluck().get(siteId(host));
      expect(done, host).toBe(facts.pagesByHost[host]);
    }
    for (const path of facts.samples.thinLevel6Pages) {
      expect(page('thin.test', path)).toMatchObject({ level: 6, status: 'queued' });
    }
    const deepest = sql.prepare('SELECT max(level) FROM pages p JOIN fetches f ON f.page_id = p.id').pluck().get();
    expect(deepest).toBe(5);
  });

  it('stores each (page, external URL) pair once, with the site totals the fixture predicts', () => {
    for (const host of facts.seedHosts) {
      const n = sql.prepare("SELECT count(*) FROM external_links WHERE site_id = ? AND tag != 'redirect'").pluck().get(siteId(host));
      expect(n, host).toBe(facts.externalPairsByHost[host]);
    }
    const dupes = sql.prepare('SELECT count(*) FROM (SELECT page_id, key FROM external_links GROUP BY 1, 2 HAVING count(*) > 1)').pluck().get();
    expect(dupes).toBe(0);
  });

  it('keeps www., relative and #fragment spellings of one page as one internal link', () => {
    const total = sql.prepare('SELECT count(*) FROM pages WHERE site_id = ?').pluck().get(siteId('thin.test')) as number;
    const all = facts.pages['thin.test']!.length;
    expect(total).toBe(all);
    const withWww = sql.prepare("SELECT count(*) FROM pages WHERE url LIKE '%www.thin.test%' OR url LIKE '%#%'").pluck().get() as number;
    // www spellings may be the first one seen (that is what is fetched), but never a second row for the same page
    const keys = sql.prepare("SELECT count(DISTINCT replace(key, 'www.', '')) FROM pages WHERE site_id = ?").pluck().get(siteId('thin.test'));
    expect(keys).toBe(total);
    expect(withWww).toBeLessThanOrEqual(total);
  });

  it('decodes legacy Cyrillic pages and records how the encoding was chosen', () => {
    const expectations: [string, string, string[]][] = [
      [facts.samples.utf8Url, 'utf-8', ['meta']],
      [facts.samples.cp1251Url, 'windows-1251', ['http']],
      [facts.samples.cp1251MetaUrl, 'windows-1251', ['meta']],
      [facts.samples.cp1251UndeclaredUrl, 'windows-1251', ['guess']],
      [facts.samples.koi8Url, 'koi8-r', ['meta']],
      [facts.samples.koi8UndeclaredUrl, 'koi8-r', ['guess']],
    ];
    for (const [path, encoding, sources] of expectations) {
      const f = fetchOf('cyr.test', path);
      expect(f, path).toBeDefined();
      expect(f.encoding, path).toBe(encoding);
      expect(sources, path).toContain(f.encoding_source);
    }
    for (const p of facts.samples.encodedPages) {
      const row = sql
        .prepare('SELECT e.anchor FROM external_links e JOIN pages p ON p.id = e.page_id WHERE p.url = ? AND e.url = ?')
        .get(web.url('cyr.test', p.path), p.externalUrl) as { anchor: string } | undefined;
      expect(row?.anchor, p.path).toBe(p.externalAnchorText);
    }
    const nav = sql.prepare('SELECT count(*) FROM pages WHERE site_id = ?').pluck().get(siteId('cyr.test'));
    expect(nav).toBeGreaterThan(0);
  });

  it('stores IDN hosts in punycode', () => {
    const n = sql.prepare('SELECT count(*) FROM external_links WHERE url = ?').pluck().get(facts.samples.idn.url) as number;
    expect(n).toBeGreaterThan(0);
  });

  it('crawls frames and iframes as internal pages and honours <base href>', () => {
    for (const path of [...facts.samples.frameUrls, facts.samples.iframeUrl, ...facts.samples.baseHrefTargets]) {
      expect(page('cyr.test', path)?.status, path).toBe('done');
    }
  });

  it('sorts javascript:, mailto: and tel: into bad links with a reason', () => {
    const reasons = sql.prepare('SELECT DISTINCT reason FROM bad_links WHERE site_id = ?').pluck().all(siteId('cyr.test'));
    expect(reasons).toEqual(expect.arrayContaining(['javascript', 'mailto', 'tel']));
    for (const raw of facts.samples.nonHttpLinks) {
      expect(sql.prepare('SELECT count(*) FROM bad_links WHERE raw = ?').pluck().get(raw), raw).toBeGreaterThan(0);
    }
  });

  it('records broken pages, resets and non-HTML answers without parsing them; links to files are stored, never fetched', () => {
    for (const path of facts.samples.brokenLinks) {
      expect(page('cyr.test', path)?.status, path).toBe('error');
      expect(fetchOf('cyr.test', path).http_status).toBe(404);
    }
    // A reset may pass: the page stays queued with its attempts, for a later run (failure-rule.ts).
    expect(page('cyr.test', facts.samples.resetUrl)?.status).toBe('queued');
    expect(sql.prepare('SELECT attempts FROM pages WHERE key = ?').pluck().get(key('cyr.test', facts.samples.resetUrl))).toBe(3);
    expect(fetchOf('cyr.test', facts.samples.resetUrl)).toBeUndefined();
    expect(page('cyr.test', facts.samples.textPlainUrl)?.status).toBe('not-html');
    const pdf = facts.samples.pdf;
    expect(page(pdf.host, pdf.url)).toMatchObject({ status: 'file', note: 'pdf' });
    expect(fetchOf(pdf.host, pdf.url)).toBeUndefined();
  });

  it('decompresses gzip and br pages', () => {
    for (const path of [facts.samples.gzipUrl, facts.samples.brUrl]) {
      expect(page('cyr.test', path)?.status, path).toBe('done');
    }
  });

  it('follows in-site redirects, records off-site ones as external links, and stops loops', () => {
    const r = facts.samples.redirects;
    expect(page('cyr.test', r.inside.from)?.status).toBe('redirect');
    expect(page('cyr.test', r.inside.final)?.status).toBe('done');
    const out = sql
      .prepare("SELECT e.url FROM external_links e JOIN pages p ON p.id = e.page_id WHERE p.url = ? AND e.tag = 'redirect'")
      .pluck()
      .all(web.url('cyr.test', r.outside.from));
    expect(out).toEqual([r.outside.location]);
    expect(fetchOf('cyr.test', r.loop[0]!).error).toMatch(/redirect-loop/);
    expect(page('cyr.test', r.www.from)?.status).toBe('redirect');
    const chain = fetchOf('cyr.test', r.chain.from[0]!);
    const hops = sql.prepare('SELECT status FROM hops WHERE fetch_seq = ? ORDER BY n').pluck().all(chain.seq);
    expect(hops).toEqual([...r.chain.statuses, 200]);
  });

  it('exports RFC 4180 CSV with a header row, and JSON Lines', async () => {
    const file = join(tmp.dir, 'external.csv');
    const r = await beebot(['export', file], { db });
    expect(r.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('site_id,site,source_url,source_level,url,anchor_text')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const total = sql.prepare('SELECT count(*) FROM external_links').pluck().get();
    expect(rows.length).toBe(total);
    expect(rows.some((x) => x.anchor_text === facts.samples.encodedPages[0]!.externalAnchorText)).toBe(true);

    const jsonl = join(tmp.dir, 'bad.jsonl');
    expect((await beebot(['export', jsonl, '--kind', 'bad', '--site', 'SZGU'], { db })).code).toBe(0);
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.site_id === siteId('cyr.test'))).toBe(true);

    const out = await beebot(['export', '-', '--kind', 'internal'], { db });
    expect(out.stdout.split('\r\n')[0]).toMatch(/^site_id,site,url,level,status,found_on_url/);
  });

  it('a rerun after completion fetches nothing more: it asks again only what failed for now, and says nothing could be reached', async () => {
    const before = sql.prepare('SELECT count(*) FROM fetches').pluck().get();
    const r = await beebot(['crawl', '--delay', '0', ...web.resolveArgs()], { db });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^beebot: nothing could be reached in this run/m);
    expect(r.stdout).toMatch(/^this run fetched nothing \(/m);
    expect(sql.prepare('SELECT count(*) FROM fetches').pluck().get()).toBe(before);
  });
});
