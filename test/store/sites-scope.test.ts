// Sites as researchers define them (a host, a registrable domain with its subdomains, or URL
// prefixes, several per host), include/exclude patterns, sitemaps seeding the frontier, and
// parameter rules for every path of a site: the pure rules, then the real CLI on loopback sites.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { listenLoopback } from '../../fixtures/listen.js';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyParamRules, type ParamRule } from '../../src/params/rules.js';
import { domainOf, nestedSites, overlapsOf, ownerOf, sitesByDomain, siteRule, siteVerdict, type Scope, type SiteRule } from '../../src/url/scope.js';
import { parseUrlPattern, type UrlPattern } from '../../src/url/url-pattern.js';
import { SiteOverlaps } from '../../src/url/site-overlaps.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { servePages, type RawFile } from '../helpers/page-server.js';
import { sitemapIndex, urlset } from '../helpers/sitemap-files.js';
import { createDatabase, startPostgres, type PgCluster } from '../helpers/postgres.js';
import { rows } from '../helpers/read-db.js';
import Database from 'better-sqlite3';
import { openDb } from '../../src/db/db.js';
import { migrations } from '../../src/db/migrations.js';
import { insertSites } from '../../src/store/sites.js';

const pattern = (s: string): UrlPattern => parseUrlPattern(s) as UrlPattern;
const rule = (url: string, scope: Scope, include: string[] = [], exclude: string[] = []): SiteRule =>
  siteRule(new URL(url), scope, { include: include.map(pattern), exclude: exclude.map(pattern) });
const verdict = (url: string, r: SiteRule, all: SiteRule[] = [r]) => siteVerdict(new URL(url), r, nestedSites(r, all)).kind;

describe('site scopes (pure)', () => {
  it('a prefix is the seed path as a directory', () => {
    expect(rule('http://h.test/dept/', 'prefix').path).toBe('/dept/');
    expect(rule('http://h.test/dept/index.html', 'prefix').path).toBe('/dept/');
    expect(rule('http://h.test/dept', 'prefix').path).toBe('/dept/');
    expect(rule('http://www.h.test/', 'prefix')).toMatchObject({ identity: 'h.test', path: '/' });
    expect(rule('http://h.test/dept/', 'host').path).toBeNull();
  });

  it('host, domain and prefix bounds', () => {
    const host = rule('http://www.uni.test/', 'host');
    expect(['http://uni.test/a', 'https://www.uni.test/b', 'http://lib.uni.test/', 'http://other.test/'].map((u) => verdict(u, host))).toEqual(['in', 'in', 'out', 'out']);
    const domain = rule('http://www.uni.test/', 'domain');
    expect(['http://lib.uni.test/', 'http://a.b.uni.test/x', 'http://uni.test/', 'http://unitest.test/'].map((u) => verdict(u, domain))).toEqual(['in', 'in', 'in', 'out']);
    const dept = rule('http://uni.test/dept/', 'prefix');
    // a link from /dept/ to /other/ of the same host is external to the prefix site
    expect(['http://uni.test/dept/', 'http://uni.test/dept', 'http://www.uni.test/dept/a/b.html', 'http://uni.test/other/', 'http://uni.test/department/'].map((u) => verdict(u, dept)))
      .toEqual(['in', 'in', 'in', 'out', 'out']);
  });

  it('nested sites: the longest prefix owns a URL, a prefix over its host, a host over its domain', () => {
    const domain = rule('http://uni.test/', 'domain');
    const host = rule('http://lib.uni.test/', 'host');
    const dept = rule('http://lib.uni.test/dept/', 'prefix');
    const lab = rule('http://lib.uni.test/dept/lab/', 'prefix');
    const all = [domain, host, dept, lab];
    const sites = all.map((r, i) => ({ id: i, rule: r }));
    const owner = (u: string) => ownerOf(new URL(u), sites)?.id;
    expect(['http://uni.test/', 'http://lib.uni.test/', 'http://lib.uni.test/dept/x', 'http://lib.uni.test/dept/lab/y', 'http://x.test/'].map(owner))
      .toEqual([0, 1, 2, 3, undefined]);
    expect(verdict('http://lib.uni.test/dept/lab/y', dept, all)).toBe('out');
    expect(verdict('http://lib.uni.test/dept/x', dept, all)).toBe('in');
    expect(verdict('http://lib.uni.test/dept/x', host, all)).toBe('out');
    expect(verdict('http://lib.uni.test/other', host, all)).toBe('in');
    expect(verdict('http://lib.uni.test/other', domain, all)).toBe('out');
    expect(verdict('http://www.uni.test/x', domain, all)).toBe('in');
    expect(nestedSites(lab, all)).toEqual([]);
  });

  it('overlapsOf: the less specific sites a site lies inside, and the more specific ones it holds', () => {
    const sites = [rule('http://uni.test/', 'domain'), rule('http://lib.uni.test/', 'host'), rule('http://lib.uni.test/dept/', 'prefix'), rule('http://lib.uni.test/dept/lab/', 'prefix'), rule('http://lib.uni.test/other/', 'prefix')]
      .map((r, id) => ({ id, rule: r }));
    const of = (i: number) => {
      const o = overlapsOf(sites[i]!.rule, sites);
      return [o.within.map((s) => s.id), o.holding.map((s) => s.id)];
    };
    expect([0, 1, 2, 3, 4].map(of)).toEqual([[[], [1, 2, 3, 4]], [[0], [2, 3, 4]], [[0, 1], [3]], [[0, 1, 2], []], [[0, 1], []]]);
    // overlapping sites share a registrable domain: the groups a site is compared within
    expect(['http://www.lib.uni.test/x/', 'http://a.github.io/', 'http://127.0.0.1:8080/p/', 'http://localhost/'].map((x) => domainOf(rule(x, 'prefix'))))
      .toEqual(['uni.test', 'a.github.io', '127.0.0.1', 'localhost']);
    const groups = sitesByDomain([...sites, { id: 5, rule: rule('http://b.github.io/', 'domain') }]);
    expect([...groups].map(([d, g]) => [d, g.map((x) => x.id)])).toEqual([['uni.test', [0, 1, 2, 3, 4]], ['b.github.io', [5]]]);
  });

  it('SiteOverlaps answers as overlapsOf over the domain\'s sites, in their order, for every mix of scopes', () => {
    const urls = ['http://uni.test/', 'http://lib.uni.test/', 'http://www.lib.uni.test/dept/', 'http://lib.uni.test/dept/lab/', 'http://lib.uni.test/other/', 'http://www.www.uni.test/',
      'http://www.uni.test/a/', 'http://math.uni.test/', 'http://a.github.io/', 'http://b.github.io/x/', 'http://127.0.0.1:8080/p/', 'http://localhost/', 'http://other.test/'];
    const scopes: Scope[] = ['domain', 'host', 'prefix'];
    // every site in every scope, in a shuffled order: the index's answers keep the sites' order
    const sites = urls.flatMap((u) => scopes.map((sc) => rule(u, sc))).map((r, k) => ({ id: (k * 16) % 39, rule: r })).sort((a, b) => a.id - b.id);
    const index = new SiteOverlaps(sites);
    const groups = sitesByDomain(sites);
    const ids = (o: { within: { id: number }[]; holding: { id: number }[] }) => [o.within.map((s) => s.id), o.holding.map((s) => s.id)];
    for (const s of sites) expect(ids(index.of(s.rule))).toEqual(ids(overlapsOf(s.rule, groups.get(domainOf(s.rule))!)));
    expect(sites.some((s) => index.of(s.rule).within.length > 0 && index.of(s.rule).holding.length > 0)).toBe(true);
  });

  it('include and exclude: globs on path and query or the whole URL, re: regexes, an exclude wins', () => {
    const r = rule('http://uni.test/', 'host', ['/news/*', 're:[?&]id=\\d+$'], ['*/print/*', 'http://uni.test/news/old*']);
    const kinds = ['http://uni.test/news/a.html', 'http://uni.test/x.php?id=12', 'http://uni.test/about', 'http://uni.test/news/print/a', 'http://uni.test/news/old/1', 'http://other.test/news/a']
      .map((u) => siteVerdict(new URL(u), r, []));
    expect(kinds).toEqual([
      { kind: 'in' }, { kind: 'in' }, { kind: 'held', note: 'not included' }, { kind: 'held', note: 'excluded by */print/*' },
      { kind: 'held', note: 'excluded by http://uni.test/news/old*' }, { kind: 'out' },
    ]);
    // '?' and '.' are literal in a glob
    expect(verdict('http://uni.test/a.php?x=1', rule('http://uni.test/', 'host', ['/a.php?x=*']))).toBe('in');
    expect(verdict('http://uni.test/aXphpYx=1', rule('http://uni.test/', 'host', ['/a.php?x=*']))).toBe('held');
    expect(parseUrlPattern('re:(')).toMatch(/^not a regular expression/);
    expect(parseUrlPattern(' ')).toBe('an empty pattern');
  });

  it("parameter rules for '*' apply to every path; a path's own rules declare its script", () => {
    const rules = new Map<string, Map<string, ParamRule>>([['*', new Map([['utm_source', { kind: 'dropped' }]])]]);
    expect(applyParamRules('/a', '?utm_source=x&id=1&b=2', rules)).toEqual({ kind: 'kept', search: '?b=2&id=1' });
    expect(applyParamRules('/b', '?utm_source=x', rules)).toEqual({ kind: 'kept', search: '' });
    const both = new Map<string, Map<string, ParamRule>>([...rules, ['/s.php', new Map([['id', { kind: 'required' }]])]]);
    expect(applyParamRules('/s.php', '?utm_source=x&id=1&junk=2', both)).toEqual({ kind: 'kept', search: '?id=1' });
    expect(applyParamRules('/s.php', '?utm_source=x', both)).toEqual({ kind: 'ignored', note: "params: 'id' is required" });
  });
});

/** A gzip sitemap that inflates to 40 MB of nothing (a valid, empty urlset). */
const HEAVY = gzipSync(Buffer.from(`<urlset>${' '.repeat(40 * 1024 * 1024)}</urlset>`));

// CLI against loopback sites ------------------------------------------------------------------

const html = (...links: string[]) => `<html><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
let port = 0;
let server: Awaited<ReturnType<typeof servePages>>;
const hosts = ['uni.test', 'www.uni2.test', 'lib.uni2.test', 'sm.test', 'many.test', 'slow.test', 'heavy.test', 'esc.test', 'plain.test', 'pat.test', 'par.test', 'other.test', 'nest.test'];
const crawl = (db: string, ...args: string[]) =>
  beebot(['crawl', '--delay', '0', '--concurrency', '1', '--budget', 'none', ...hosts.flatMap((h) => ['--resolve', `${h}:${port}:127.0.0.1`]), ...args], { db });
/** Run `f` on a new database in a temporary directory, removed after. */
async function inTempDb(f: (db: string, dir: string) => Promise<void>): Promise<void> {
  const { dir, cleanup } = tempDir();
  try {
    await f(join(dir, 'b.db'), dir);
  } finally {
    cleanup();
  }
}
const u = (host: string, path = '/') => `http://${host}:${port}${path}`;

beforeAll(async () => {
  const site: Record<string, string | RawFile> = {
    // one host, three departments: /dept/ and /dept/lab/ are sites of their own, /other/ is not
    'uni.test/': html('/dept/', '/other/'),
    'uni.test/dept/': html('/dept/a.html', '/dept/lab/', '/other/x.html', 'http://other.test/'),
    'uni.test/dept/a.html': html('/dept/b.html'),
    'uni.test/dept/b.html': html(),
    'uni.test/dept/lab/': html('/dept/lab/l1.html', '/dept/'),
    'uni.test/dept/lab/l1.html': html(),
    'uni.test/other/': html(),
    'uni.test/other/x.html': html(),
    // a registrable domain with a subdomain
    'www.uni2.test/': html(`http://lib.uni2.test:PORT/`, 'http://other.test/'),
    'lib.uni2.test/': html('/catalog.html'),
    'lib.uni2.test/catalog.html': html(),
    // sitemaps: robots.txt names an index; the index lists a plain and a gzip sitemap; /sitemap.xml too
    'sm.test/': html('/linked.html'),
    'sm.test/linked.html': html(),
    'sm.test/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\nSitemap: http://sm.test:PORT/maps/index.xml\nSitemap: /maps/missing.xml\nSitemap: http://[broken\n' },
    'sm.test/maps/index.xml': { type: 'application/xml', body: sitemapIndex('http://sm.test:PORT/maps/a.xml', 'http://sm.test:PORT/maps/b.xml.gz', 'http://sm.test:PORT/maps/broken.xml') },
    'sm.test/maps/a.xml': { type: 'application/xml', body: urlset('http://sm.test:PORT/only-a.html', 'http://sm.test:PORT/linked.html', 'http://other.test/elsewhere.html') },
    'sm.test/maps/b.xml.gz': { type: 'application/gzip', body: '' },
    'sm.test/maps/broken.xml': { type: 'text/html', body: '<html>oops</html>' },
    'sm.test/sitemap.xml': { type: 'application/xml', body: urlset('http://sm.test:PORT/only-root.html') },
    'sm.test/only-a.html': html('/deep.html'),
    'sm.test/only-b.html': html(),
    'sm.test/only-root.html': html(),
    'sm.test/deep.html': html(),
    // sitemaps that inflate to 40 MB each (of nothing): the site's sitemaps stop at 100 MB in all
    'heavy.test/': html(),
    'heavy.test/sitemap.xml': { type: 'application/xml', body: sitemapIndex(...[1, 2, 3, 4, 5].map((i) => `http://heavy.test:PORT/maps/${i}.xml.gz`)) },
    ...Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`heavy.test/maps/${i}.xml.gz`, { type: 'application/gzip', body: HEAVY }])),
    // an index of sitemaps that are all missing (a hostile or broken site): only so many are asked for
    'many.test/': html(),
    // a sitemap whose root element's name is a terminal escape (a window title, a colour)
    'esc.test/': html(),
    'esc.test/sitemap.xml': { type: 'application/xml', body: '<\x1b]0;pwned\x07\x1b[31mx>hi</\x1b]0;pwned\x07\x1b[31mx>' },
    // an index of sitemaps that each trickle a byte at a time, never ending
    'slow.test/': html(),
    'slow.test/sitemap.xml': { type: 'application/xml', body: sitemapIndex(...Array.from({ length: 20 }, (_, i) => `http://slow.test:PORT/maps/${i}.xml`)) },
    ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`slow.test/maps/${i}.xml`, { type: 'application/xml', body: urlset('http://slow.test:PORT/x.html'), trickle: 100 }])),
    'many.test/sitemap.xml': { type: 'application/xml', body: sitemapIndex(...Array.from({ length: 120 }, (_, i) => `http://many.test:PORT/maps/${i}.xml`)) },
    'plain.test/': html('/p.html'),
    'plain.test/p.html': html(),
    'plain.test/sitemap.xml': { type: 'application/xml', body: urlset('http://plain.test:PORT/hidden.html') },
    'plain.test/hidden.html': html(),
    // include / exclude
    'pat.test/': html('/news/1.html', '/news/print/1.html', '/shop/cart.html', '/news/2.html?id=7'),
    'pat.test/news/1.html': html(),
    'pat.test/news/2.html': html(),
    'pat.test/news/print/1.html': html(),
    'pat.test/shop/cart.html': html(),
    'pat.test/news/3.html': html(),
    'pat.test/shop/s.html': html(),
    'pat.test/sitemap.xml': { type: 'application/xml', body: urlset('http://pat.test:PORT/shop/s.html', 'http://pat.test:PORT/news/3.html') },
    // parameters
    'par.test/': html('/a?utm_source=x&id=1', '/a?id=1&utm_source=y', '/b?utm_source=z'),
    'par.test/a': html(),
    'par.test/b': html(),
    'other.test/': html(),
    // a host whose /dept/ folder becomes a prefix site of its own after the host was crawled
    'nest.test/': html('/dept/', '/other/'),
    'nest.test/dept/': html('/dept/a.html', '/dept/auth/x.html', '/other/', 'http://other.test/'),
    'nest.test/dept/a.html': html('/'),
    'nest.test/dept/auth/x.html': html('http://other.test/auth'),
    'nest.test/other/': html('/dept/a.html', '/other/more.html'),
    'nest.test/other/more.html': html(),
  };
  // the pages name their port: the server reads this record on each request, filled once the port is known
  const pages: Record<string, string | RawFile> = {};
  server = await servePages(pages);
  port = server.port;
  const fill = (v: string | RawFile): string | RawFile =>
    typeof v === 'string' ? v.replaceAll('PORT', String(port)) : Buffer.isBuffer(v.body) ? v : { ...v, body: v.body.replaceAll('PORT', String(port)) };
  for (const [k, v] of Object.entries(site)) pages[k] = fill(v);
  pages['sm.test/maps/b.xml.gz'] = { type: 'application/gzip', body: gzipSync(urlset(`http://sm.test:${port}/only-b.html`)) };
});
afterAll(() => server?.close());

describe('prefix sites on one host', () => {
  it('crawls each prefix as a site; links to the rest of the host, or to a nested prefix, are external; the site graph and hosts work per site', () =>
    inTempDb(async (db, dir) => {
    expect((await beebot(['seeds', 'add', u('uni.test', '/dept/'), '--scope', 'prefix', '--short', 'dept'], { db })).code).toBe(0);
    expect((await beebot(['seeds', 'add', u('uni.test', '/dept/lab/'), '--scope', 'prefix', '--short', 'lab'], { db })).code).toBe(0);
    const dup = await beebot(['seeds', 'add', u('uni.test', '/dept/index.html'), '--scope', 'prefix'], { db });
    expect([dup.code, dup.stderr]).toEqual([2, expect.stringContaining('duplicates site 1')]);
    expect((await beebot(['seeds', 'add', u('uni.test', '/x'), '--scope', 'path'], { db })).code).toBe(2);
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    const pages = rows<{ site_id: number; url: string; status: string }>(db, 'SELECT site_id, url, status FROM pages ORDER BY site_id, url')
      .map((p) => `${p.site_id} ${new URL(p.url).pathname} ${p.status}`);
    expect(pages).toEqual(['1 /dept/ done', '1 /dept/a.html done', '1 /dept/b.html done', '2 /dept/lab/ done', '2 /dept/lab/l1.html done']);
    const ext = rows<{ site_id: number; url: string; host: string }>(db, 'SELECT site_id, url, host FROM external_links ORDER BY site_id, url')
      .map((e) => `${e.site_id} ${e.url.replace(`:${port}`, '')}`);
    expect(ext).toEqual(['1 http://other.test/', '1 http://uni.test/dept/lab/', '1 http://uni.test/other/x.html', '2 http://uni.test/dept/']);
    expect(server.requests.filter((q) => q.startsWith('uni.test/other'))).toEqual([]);
    const list = JSON.parse((await beebot(['seeds', 'list', '--json'], { db })).stdout) as { scope: string; prefix: string }[];
    expect(list.map((s) => [s.scope, s.prefix])).toEqual([['prefix', '/dept/'], ['prefix', '/dept/lab/']]);
    // the site graph: each prefix is its own node, and links between them are site → site edges
    expect((await beebot(['export', join(dir, 'edges.csv'), '--kind', 'edges'], { db })).code).toBe(0);
    const edges = readFileSync(join(dir, 'edges.csv'), 'utf8').trim().split(/\r?\n/).slice(1).map((l) => l.split(',').slice(0, 3).join(' ')).sort();
    expect(edges).toEqual(['uni.test/dept/ other.test 1', 'uni.test/dept/ uni.test 1', 'uni.test/dept/ uni.test/dept/lab/ 1', 'uni.test/dept/lab/ uni.test/dept/ 1']);
    // the companion set: uni.test is linked from both prefix sites, and is itself a target site's host
    const companion = JSON.parse((await beebot(['hosts', '--json'], { db })).stdout) as { host: string; sites: number; target_site_id: number | null }[];
    expect(companion.map((h) => [h.host, h.sites, h.target_site_id])).toEqual([['uni.test', 2, 1], ['other.test', 1, null]]);
    // the report, and each prefix site's map
    const report = await beebot(['report', join(dir, 'r.html')], { db });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(join(dir, 'r.html'), 'utf8')).toMatch(/\bdept\b[\s\S]*\blab\b|\blab\b[\s\S]*\bdept\b/);
    const map = await beebot(['map', 'lab', join(dir, 'lab.json')], { db });
    expect(map.code, map.stderr).toBe(0);
    expect(readFileSync(join(dir, 'lab.json'), 'utf8')).toContain('/dept/lab/l1.html');
    }));
});

// A prefix site inside a host site, added after the host was crawled (SQLite and PostgreSQL below).
// What each site must end with, whichever way it came about: a page is the most specific site's,
// fetched once; each site's links into the other are external.
async function expectOwned(db: string): Promise<void> {
  const pages = rows<{ site_id: number; url: string; level: number; status: string; note: string | null }>(db, 'SELECT site_id, url, level, status, note FROM pages ORDER BY site_id, url')
    .map((p) => `${p.site_id} ${new URL(p.url).pathname} ${p.level} ${p.status}${p.note ? ` ${p.note}` : ''}`);
  expect(pages).toEqual([
    '1 / 0 done', '1 /other/ 1 done', '1 /other/more.html 2 done',
    '2 /dept/ 0 done', '2 /dept/a.html 1 done', '2 /dept/auth/x.html 1 excluded excluded by */auth/*',
  ]);
  const ext = rows<{ site_id: number; page: string; url: string }>(db, 'SELECT e.site_id, p.url AS page, e.url FROM external_links e JOIN pages p ON p.id = e.page_id ORDER BY e.site_id, p.url, e.url')
    .map((e) => `${e.site_id} ${new URL(e.page).pathname} ${e.url.replace(`:${port}`, '')}`);
  expect(ext).toEqual([
    '1 / http://nest.test/dept/', '1 /other/ http://nest.test/dept/a.html',
    '2 /dept/ http://nest.test/other/', '2 /dept/ http://other.test/', '2 /dept/a.html http://nest.test/',
  ]);
  const fetched = rows<{ site_id: number; url: string }>(db, 'SELECT f.site_id, p.url FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.site_id, p.url')
    .map((f) => `${f.site_id} ${new URL(f.url).pathname}`);
  expect(fetched).toEqual(['1 /', '1 /other/', '1 /other/more.html', '2 /dept/', '2 /dept/a.html']);
  const status = JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: Record<string, unknown>[] };
  expect(status.sites.map((s) => [s.pages_fetched, s.deepest_level, s.internal, s.external, s.external_hosts])).toEqual([[3, 2, 3, 2, 1], [2, 1, 3, 3, 2]]);
  // the host site's links into the prefix site are links to another site: its own host is among its outside hosts
  const own = JSON.parse((await beebot(['hosts', '--site', 'host', '--json'], { db })).stdout) as { host: string; pairs: number }[];
  expect(own.map((h) => [h.host, h.pairs])).toEqual([['nest.test', 2]]);
}
const nestRequests = () => server.requests.filter((q) => q.startsWith('nest.test/dept'));
async function addAfterCrawl(db: string): Promise<void> {
  const before = nestRequests().length;
  expect((await beebot(['seeds', 'add', u('nest.test'), '--short', 'host'], { db })).code).toBe(0);
  const first = await crawl(db, '--max-level', '1');
  expect(first.code, first.stderr).toBe(0);
  const add = await beebot(['seeds', 'add', u('nest.test', '/dept/'), '--scope', 'prefix', '--exclude', '*/auth/*', '--short', 'dept'], { db });
  expect([add.code, add.stdout], add.stderr).toEqual([0, `added site 2: ${u('nest.test', '/dept/')} (short: dept)\n`]);
  expect(add.stderr).toBe(
    `site 2 (nest.test/dept/) lies inside site 1 (nest.test): its pages are site 2's from now on, and links between the two sites count as external\n` +
      `3 pages site 1 had stored are site 2's now (1 fetched, not fetched again)\n`,
  );
  const second = await crawl(db, '--max-level', '5'); // --max-level is kept with the crawl: back to the default
  expect(second.code, second.stderr).toBe(0);
  expect(nestRequests().slice(before).sort()).toEqual(['nest.test/dept/', 'nest.test/dept/a.html']);
  await expectOwned(db);
}
async function migrateDoubleCrawl(db: string, rollBack: (db: string) => void): Promise<void> {
  expect((await beebot(['seeds', 'add', u('nest.test'), '--short', 'host'], { db })).code).toBe(0);
  expect((await crawl(db, '--max-level', '1')).code).toBe(0);
  // the prefix site added as an older beebot added it: its start page, nothing given to it
  const d = openDb(db);
  insertSites(d, [{ url: new URL(u('nest.test', '/dept/')), scope: 'prefix', short: 'dept', exclude: ['*/auth/*'] }], 'standard');
  d.close();
  const twice = await crawl(db, '--max-level', '5'); // --max-level is kept with the crawl: back to the default
  expect(twice.code, twice.stderr).toBe(0);
  expect(rows(db, `SELECT f.site_id FROM fetches f JOIN pages p ON p.id = f.page_id WHERE p.url LIKE '%/dept/a.html' ORDER BY f.site_id`)).toEqual([{ site_id: 1 }, { site_id: 2 }]);
  rollBack(db);
  const migrated = await beebot(['status'], { db }); // the first command to open it migrates it
  expect(migrated.code, migrated.stderr).toBe(0);
  await expectOwned(db);
}

describe('a prefix site inside a host site, added after the host was crawled', () => {
  it('seeds import says where the sites it adds meet the others, once a pair, and what a prefix seed naming a page or / is', () =>
    inTempDb(async (db, dir) => {
    const file = join(dir, 'seeds.csv');
    writeFileSync(file, `url,scope\n${u('uni.test')},host\n${u('uni.test', '/dept/index.html')},prefix\n${u('uni.test')},domain\n${u('other.test', '/index.html')},prefix\n`);
    const r = await beebot(['seeds', 'import', file], { db });
    expect([r.code, r.stdout]).toEqual([0, 'added 4, skipped 0\n']);
    expect(r.stderr).toBe(
      `site 2 (uni.test/dept/) is the folder /dept/ with every page under it, not /dept/index.html alone\n` +
        `site 2 (uni.test/dept/) lies inside site 1 (uni.test): its pages are site 2's from now on, and links between the two sites count as external\n` +
        `site 3 (uni.test) holds site 1 (uni.test): site 1's pages stay site 1's, and links between the two sites count as external\n` +
        `site 3 (uni.test) holds site 2 (uni.test/dept/): site 2's pages stay site 2's, and links between the two sites count as external\n` +
        `site 4 (other.test/) is the folder /: the whole host, as --scope host would be, and it owns every page of the host that no more specific site holds\n`,
    );
    }));

  it('a site inside another is not added while a crawl of the file runs; a site elsewhere is', () =>
    inTempDb(async (db) => {
    expect((await beebot(['seeds', 'add', u('nest.test')], { db })).code).toBe(0);
    writeFileSync(`${db}.lock`, String(process.pid)); // a live process holds the crawl's lock
    const inside = await beebot(['seeds', 'add', u('nest.test', '/dept/'), '--scope', 'prefix'], { db });
    expect([inside.code, inside.stderr]).toEqual([1, `beebot: a crawl (pid ${process.pid}) is running on ${db}: stop it before adding a site inside another (it takes over pages the crawl may hold)\n`]);
    expect((await beebot(['seeds', 'add', u('other.test')], { db })).code).toBe(0);
    expect(rows<{ url: string }>(db, 'SELECT url FROM sites ORDER BY id').map((x) => x.url)).toEqual([u('nest.test'), u('other.test')]);
    }));

  it('seeds add moves the pages the host site stored there to the prefix site: none is fetched twice, each is counted once', () =>
    inTempDb(addAfterCrawl));

  it('the migration mends a crawl where both sites fetched and counted the same pages', () =>
    inTempDb((db) => migrateDoubleCrawl(db, (file) => {
      const old = new Database(file);
      old.exec('DROP TABLE queued_levels');
      old.pragma(`user_version = ${migrations.findIndex((m) => m.includes('no change of layout'))}`);
      old.close();
    })));
});

describe('a domain site', () => {
  it('crawls the registrable domain with its subdomains as one site', () =>
    inTempDb(async (db, dir) => {
    expect((await beebot(['seeds', 'add', u('www.uni2.test'), '--scope', 'domain'], { db })).code).toBe(0);
    // the same domain again, typed through another host: a duplicate
    expect((await beebot(['seeds', 'add', u('lib.uni2.test'), '--scope', 'domain'], { db })).code).toBe(2);
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    const pages = rows<{ url: string; status: string }>(db, 'SELECT url, status FROM pages ORDER BY id').map((p) => `${p.url.replace(`:${port}`, '')} ${p.status}`);
    expect(pages).toEqual(['http://www.uni2.test/ done', 'http://lib.uni2.test/ done', 'http://lib.uni2.test/catalog.html done']);
    expect(rows<{ url: string }>(db, 'SELECT url FROM external_links').map((e) => e.url)).toEqual(['http://other.test/']);
    }));
});

describe('sitemaps', () => {
  it("queue a site's pages from robots.txt's Sitemap: lines, sitemap indexes, gzip and /sitemap.xml, at level 1, naming their sitemap", () =>
    inTempDb(async (db, dir) => {
    expect((await beebot(['seeds', 'add', u('sm.test'), '--sitemaps', 'yes'], { db })).code).toBe(0);
    expect((await beebot(['seeds', 'add', u('plain.test')], { db })).code).toBe(0);
    expect((await beebot(['seeds', 'add', u('x.test'), '--sitemaps', 'maybe'], { db })).code).toBe(2);
    const r = await crawl(db, '--max-level', '1');
    expect(r.code, r.stderr).toBe(0);
    const pages = rows<{ url: string; level: number; status: string; on: string | null; sitemap: string | null }>(
      db, `SELECT p.url, p.level, p.status, f.url AS "on", p.sitemap FROM pages p LEFT JOIN pages f ON f.id = p.found_on WHERE p.site_id = 1 ORDER BY p.id`,
    ).map((p) => [new URL(p.url).pathname, p.level, p.status, p.on && new URL(p.on).pathname, p.sitemap && new URL(p.sitemap).pathname]);
    expect(pages).toEqual([
      ['/', 0, 'done', null, null],
      ['/linked.html', 1, 'done', '/', '/maps/a.xml'], // found by a link first: keeps its level, names the sitemap too
      ['/only-root.html', 1, 'done', null, '/sitemap.xml'], // files in breadth-first order: robots.txt's, /sitemap.xml, the index's
      ['/only-a.html', 1, 'done', null, '/maps/a.xml'],
      ['/only-b.html', 1, 'done', null, '/maps/b.xml.gz'],
      ['/deep.html', 2, 'queued', '/only-a.html', null], // beyond --max-level 1: stored, not fetched
    ]);
    // what they gave, and the files that could not be read, in the summary and in status
    const missing = `http://sm.test:${port}/maps/missing.xml: HTTP 404`;
    const broken = `http://sm.test:${port}/maps/broken.xml: not a sitemap (root <html>)`;
    expect(r.stdout).toContain(
      `sitemaps read for 1 site(s): 5 files, 4 pages of the sites, 3 new to the frontier; 1 site(s) with files that could not be read:\n` +
        `  site ${u('sm.test')}: ${missing}\n  site ${u('sm.test')}: ${broken}\n`,
    );
    const status = JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: { sitemaps: unknown }[] };
    expect(status.sites.map((s) => s.sitemaps)).toEqual([{ read_at: expect.stringMatching(/^\d{4}-/), files: 5, pages: 4, problems: [missing, broken] }, null]);
    expect((await beebot(['status'], { db })).stdout).toContain(`sm.test: sitemap not read: ${missing}\nsm.test: sitemap not read: ${broken}\n`);
    // a site with sitemaps off (the default) reads none
    expect(server.requests.filter((q) => q.startsWith('plain.test/sitemap'))).toEqual([]);
    expect(rows(db, `SELECT url FROM pages WHERE url LIKE '%hidden%'`)).toEqual([]);
    // on for every site by the setting
    expect((await beebot(['config', 'set', 'sitemaps', 'yes'], { db })).code).toBe(0);
    expect((await crawl(db, '--max-level', '1')).code).toBe(0);
    expect(rows<{ status: string }>(db, `SELECT status FROM pages WHERE url LIKE '%plain.test%hidden.html'`)).toEqual([{ status: 'done' }]);
    }));
});

describe('a sitemap that fails for now', () => {
  it('is read again by the next crawl (a 503 is "not now"), and status says so meanwhile', () =>
    inTempDb(async (db) => {
    let down = true;
    const flaky = createServer((req, res) => {
      if (req.url === '/sitemap.xml') {
        if (down) return void res.writeHead(503).end();
        return void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset(`http://flaky.test:${flakyPort}/from-map.html`));
      }
      res.writeHead(req.url === '/' || req.url === '/from-map.html' ? 200 : 404, { 'content-type': 'text/html' }).end(html());
    });
    const flakyPort = await listenLoopback(flaky);
    try {
      const site = `http://flaky.test:${flakyPort}/`;
      expect((await beebot(['seeds', 'add', site, '--sitemaps', 'yes'], { db })).code).toBe(0);
      const run = () => beebot(['crawl', '--delay', '0', '--concurrency', '1', '--resolve', `flaky.test:${flakyPort}:127.0.0.1`], { db });
      const first = await run();
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain(`  site ${site}: ${site}sitemap.xml: HTTP 503 (read again by the next crawl)\n`);
      const sitemaps = async () => (JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: { sitemaps: unknown }[] }).sites[0]!.sitemaps;
      expect(await sitemaps()).toEqual({ read_at: null, files: 0, pages: 0, problems: [`${site}sitemap.xml: HTTP 503 (read again by the next crawl)`] });
      down = false;
      const second = await run();
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain('sitemaps read for 1 site(s): 1 files, 1 pages of the sites, 1 new to the frontier\n');
      expect(await sitemaps()).toEqual({ read_at: expect.stringMatching(/^\d{4}-/), files: 1, pages: 1, problems: [] });
      expect(rows<{ status: string }>(db, `SELECT status FROM pages WHERE url LIKE '%from-map.html'`)).toEqual([{ status: 'done' }]);
    } finally {
      await new Promise((r) => flaky.close(r));
    }
    }));
});

describe('sitemaps of a hostile site', () => {
  it('sitemaps that inflate to 40 MB each stop at 100 MB in all: the crawl thread is not held for each of them', () =>
    inTempDb(async (db) => {
    expect((await beebot(['seeds', 'add', u('heavy.test'), '--sitemaps', 'yes'], { db })).code).toBe(0);
    const before = server.requests.length;
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    // the index and three of the five: 40 + 40 MB read, the third cut at what is left
    expect(server.requests.slice(before).filter((q) => q.startsWith('heavy.test/maps/'))).toHaveLength(3);
    const status = JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: { sitemaps: { files: number; problems: string[] } }[] };
    expect(status.sites[0]!.sitemaps).toMatchObject({
      files: 4,
      problems: [`http://heavy.test:${port}/maps/3.xml.gz: past what a site's sitemaps may take in all: not read`, "2 more sitemap file(s) not read: the site's sitemaps took 100 MB in all"],
    });
    }));

  it('an index of 120 missing sitemaps costs 50 requests in all, each a problem the summary and status name', () =>
    inTempDb(async (db) => {
    expect((await beebot(['seeds', 'add', u('many.test'), '--sitemaps', 'yes'], { db })).code).toBe(0);
    const before = server.requests.length;
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    const asked = server.requests.slice(before).filter((q) => q.startsWith('many.test/maps/'));
    expect(asked).toHaveLength(49); // and /sitemap.xml itself
    expect(r.stdout).toContain('sitemaps read for 1 site(s): 1 files, 0 pages of the sites, 0 new to the frontier; 1 site(s) with files that could not be read:\n');
    expect(r.stdout).toContain(`  site ${u('many.test')}: http://many.test:${port}/maps/2.xml: HTTP 404\n  site ${u('many.test')}: and 46 more (beebot status --json)\n`);
    const status = JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: { sitemaps: { problems: string[] } }[] };
    expect(status.sites[0]!.sitemaps.problems).toHaveLength(49);
    }));
});

describe('sitemaps of a slow site', () => {
  it("an index of sitemaps that trickle holds its site two page deadlines in all, not one per file; they are read again next crawl", () =>
    inTempDb(async (db) => {
    expect((await beebot(['seeds', 'add', u('slow.test'), '--sitemaps', 'yes'], { db })).code).toBe(0);
    const before = server.requests.length;
    expect((await beebot(['config', 'set', 'page-timeout', '600'], { db })).code).toBe(0);
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    // the index, then files until 1.2 s are spent: each is cut at its own 600 ms deadline
    const asked = server.requests.slice(before).filter((q) => q.startsWith('slow.test/maps/'));
    expect(asked).toHaveLength(2);
    const status = JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: { sitemaps: { read_at: string | null; problems: string[] } }[] };
    expect(status.sites[0]!.sitemaps).toMatchObject({
      read_at: null, // a file that timed out may answer next time
      problems: [
        `http://slow.test:${port}/maps/0.xml: page-timeout (read again by the next crawl)`,
        `http://slow.test:${port}/maps/1.xml: page-timeout (read again by the next crawl)`,
        "18 more sitemap file(s) not read: the site's sitemaps took longer than 1.2 s in all",
      ],
    });
    }));
});

describe('sitemaps of a hostile site, on the terminal', () => {
  it("a problem line's control characters (the site's escape sequences) show as '?' in the summary, status and status --json", () =>
    inTempDb(async (db) => {
    expect((await beebot(['seeds', 'add', u('esc.test'), '--sitemaps', 'yes', '--short', 'esc'], { db })).code).toBe(0);
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    const line = `http://esc.test:${port}/sitemap.xml: not a sitemap (root <?]0;pwned??[31mx>)`;
    expect(r.stdout).toContain(`  site esc: ${line}\n`);
    expect((await beebot(['status'], { db })).stdout).toContain(`esc: sitemap not read: ${line}\n`);
    const json = await beebot(['status', '--json'], { db });
    expect((JSON.parse(json.stdout) as { sites: { sitemaps: { problems: string[] } }[] }).sites[0]!.sitemaps.problems).toEqual([line]);
    for (const out of [r.stdout, (await beebot(['status'], { db })).stdout]) expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }));
});

describe('include and exclude', () => {
  it('hold the URLs they leave out (status excluded, never fetched), pages and sitemaps alike', () =>
    inTempDb(async (db, dir) => {
    const add = await beebot(['seeds', 'add', u('pat.test'), '--include', '/news/*', '--include', 're:/$', '--exclude', '*/print/*', '--sitemaps', 'yes'], { db });
    expect(add.code, add.stderr).toBe(0);
    const bad = await beebot(['seeds', 'add', u('pat2.test'), '--exclude', 're:(['], { db });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("bad pattern 're:(['")]);
    const r = await crawl(db);
    expect(r.code, r.stderr).toBe(0);
    const pages = rows<{ url: string; status: string; note: string | null }>(db, 'SELECT url, status, note FROM pages ORDER BY url')
      .map((p) => [new URL(p.url).pathname + new URL(p.url).search, p.status, p.note]);
    expect(pages).toEqual([
      ['/', 'done', null],
      ['/news/1.html', 'done', null],
      ['/news/2.html?id=7', 'done', null],
      ['/news/3.html', 'done', null],
      ['/news/print/1.html', 'excluded', 'excluded by */print/*'],
      ['/shop/cart.html', 'excluded', 'not included'],
      ['/shop/s.html', 'excluded', 'not included'],
    ]);
    expect(server.requests.filter((q) => q.startsWith('pat.test/shop') || q.includes('print'))).toEqual([]);
    }));
});

describe("params set <site> '*'", () => {
  it('rules a parameter on every path of the site', () =>
    inTempDb(async (db, dir) => {
    expect((await beebot(['seeds', 'add', u('par.test'), '--short', 'par'], { db })).code).toBe(0);
    const set = await beebot(['params', 'set', 'par', '*', 'utm_source', 'dropped'], { db });
    expect(set.code, set.stderr).toBe(0);
    expect((await beebot(['params', 'test', u('par.test', '/x?utm_source=q&k=1')], { db })).stdout.trim()).toBe(`http://par.test:${port}/x?k=1`);
    expect((await crawl(db)).code).toBe(0);
    expect(rows<{ key: string }>(db, 'SELECT key FROM pages ORDER BY id').map((p) => p.key.replace(`:${port}`, ''))).toEqual([
      'http://par.test/', 'http://par.test/a?id=1', 'http://par.test/b',
    ]);
    }));
});

describe('on PostgreSQL', () => {
  let cluster: PgCluster | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('a prefix site added inside a crawled host site gets its pages, and the upgrade mends a crawl that fetched them twice, as on SQLite', async () => {
    await addAfterCrawl(await createDatabase(cluster!));
    await migrateDoubleCrawl(await createDatabase(cluster!), (url) => {
      const d = openDb(url);
      // back to the layout before the page-owner step (18), without the table added after it
      d.exec(`DROP TABLE queued_levels; COMMENT ON TABLE settings IS 'beebot schema 17'`);
      d.close();
    });
  }, 120_000);

  it('prefix sites and sitemaps store what they store on SQLite', async () => {
    const db = await createDatabase(cluster!);
    for (const args of [[u('uni.test', '/dept/'), '--scope', 'prefix'], [u('uni.test', '/dept/lab/'), '--scope', 'prefix'], [u('sm.test'), '--sitemaps', 'yes']]) {
      const r = await beebot(['seeds', 'add', ...args], { db });
      expect(r.code, r.stderr).toBe(0);
    }
    const r = await crawl(db, '--max-level', '1');
    expect(r.code, r.stderr).toBe(0);
    const pages = rows<{ site_id: string | number; url: string; level: string | number; sitemap: string | null }>(db, 'SELECT site_id, url, level, sitemap FROM pages')
      .map((p) => `${p.site_id} ${new URL(p.url).host.replace(/:\d+$/, '')}${new URL(p.url).pathname} ${p.level} ${p.sitemap ? new URL(p.sitemap).pathname : '-'}`)
      .sort((a, b) => (a.slice(2) < b.slice(2) ? -1 : 1));
    expect(pages).toEqual([
      '3 sm.test/ 0 -', '3 sm.test/deep.html 2 -', '3 sm.test/linked.html 1 /maps/a.xml', '3 sm.test/only-a.html 1 /maps/a.xml',
      '3 sm.test/only-b.html 1 /maps/b.xml.gz', '3 sm.test/only-root.html 1 /sitemap.xml',
      '1 uni.test/dept/ 0 -', '1 uni.test/dept/a.html 1 -', '1 uni.test/dept/b.html 2 -', '2 uni.test/dept/lab/ 0 -', '2 uni.test/dept/lab/l1.html 1 -',
    ]);
  }, 120_000);
});
