// URL parameter rules (the web-mapping article's §2.2) — the pure rule
// application, the rule syntax, the CLI, and a real crawl of a loopback site with a script.
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { canonicalLink } from '../../src/params/canonical.js';
import { parseParamRule, scriptPath } from '../../src/params/rule-spec.js';
import { applyParamRules, type ParamRule, type SiteParamRules } from '../../src/params/rules.js';
import { beebot, tempDir } from '../helpers/cli.js';

const rules = (spec: Record<string, Record<string, ParamRule>>): SiteParamRules =>
  new Map(Object.entries(spec).map(([path, params]) => [path, new Map(Object.entries(params))]));

const shop = rules({
  '/item.php': {
    id: { kind: 'required' },
    sort: { kind: 'required-from', values: ['asc', 'desc'] },
    page: { kind: 'optional', default: '1' },
    sid: { kind: 'dropped' },
  },
});

describe('applyParamRules', () => {
  it('keeps declared parameters sorted by name, fills in defaults and drops the rest', () => {
    expect(applyParamRules('/item.php', '?sort=asc&utm=x&id=7&sid=abc', shop)).toEqual({ kind: 'kept', search: '?id=7&page=1&sort=asc' });
    expect(applyParamRules('/item.php', '?page=3&sort=desc&id=7', shop)).toEqual({ kind: 'kept', search: '?id=7&page=3&sort=desc' });
  });

  it('names one content by one query: equivalent spellings give the same query', () => {
    const a = applyParamRules('/item.php', '?id=7&sort=asc', shop);
    const b = applyParamRules('/item.php', '?sort=asc&page=1&id=7&ref=home', shop);
    expect(a).toEqual(b);
  });

  it('keeps the spelling of kept values and compares decoded ones', () => {
    expect(applyParamRules('/item.php', '?id=a%20b&sort=%61sc', shop)).toEqual({ kind: 'kept', search: '?id=a%20b&page=1&sort=%61sc' });
    expect(applyParamRules('/item.php', '?id=a+b&sort=asc', shop)).toEqual({ kind: 'kept', search: '?id=a+b&page=1&sort=asc' });
    expect(applyParamRules('/item.php', '?id=%E0%A4%A&sort=asc', shop)).toEqual({ kind: 'kept', search: '?id=%E0%A4%A&page=1&sort=asc' });
  });

  it('ignores a URL that breaks a rule and says which', () => {
    expect(applyParamRules('/item.php', '?sort=asc', shop)).toEqual({ kind: 'ignored', note: "params: 'id' is required" });
    expect(applyParamRules('/item.php', '?id=&sort=asc', shop)).toEqual({ kind: 'ignored', note: "params: 'id' is required" });
    expect(applyParamRules('/item.php', '?id=1', shop)).toEqual({ kind: 'ignored', note: "params: 'sort' is required" });
    expect(applyParamRules('/item.php', '?id=1&sort=up', shop)).toEqual({ kind: 'ignored', note: "params: 'sort=up' is not one of asc,desc" });
    expect(applyParamRules('/item.php', '?id=1&id=2&sort=asc', shop)).toEqual({ kind: 'ignored', note: "params: 'id' given more than once" });
  });

  it('leaves paths without rules alone (null), and a script whose parameters are all dropped loses its query', () => {
    expect(applyParamRules('/other.php', '?b=1&a=2', shop)).toBeNull();
    expect(applyParamRules('/Item.php', '?id=1', shop)).toBeNull(); // paths match exactly
    const dropAll = rules({ '/news.php': { sid: { kind: 'dropped' } } });
    expect(applyParamRules('/news.php', '?sid=9&x=1', dropAll)).toEqual({ kind: 'kept', search: '' });
  });

  it('fills a default percent-encoded', () => {
    const r = rules({ '/s': { q: { kind: 'optional', default: 'a b&c' } } });
    expect(applyParamRules('/s', '', r)).toEqual({ kind: 'kept', search: '?q=a%20b%26c' });
  });
});

describe('canonicalLink', () => {
  it('gives the fetch URL and the key of the canonical URL under the normalize mode', () => {
    expect(canonicalLink('https://www.shop.test/item.php?sid=1&sort=asc&id=3', shop, 'standard')).toEqual({
      kind: 'kept', url: 'https://www.shop.test/item.php?id=3&page=1&sort=asc', key: 'http://shop.test/item.php?id=3&page=1&sort=asc',
    });
    expect(canonicalLink('http://shop.test/item.php?id=A&sort=asc', shop, 'paper')).toMatchObject({ key: 'http://shop.test/item.php?id=a&page=1&sort=asc' });
    expect(canonicalLink('http://shop.test/other?z=1', shop, 'standard')).toBeNull();
  });
});

describe('rule syntax', () => {
  it('reads the four rules and rejects anything else with a readable reason', () => {
    expect(parseParamRule('required', undefined)).toEqual({ kind: 'required' });
    expect(parseParamRule('required-from', 'asc, desc,asc')).toEqual({ kind: 'required-from', values: ['asc', 'desc'] });
    expect(parseParamRule('optional', '')).toEqual({ kind: 'optional', default: '' });
    expect(parseParamRule('dropped', undefined)).toEqual({ kind: 'dropped' });
    expect(parseParamRule('required', 'x')).toMatch(/takes no value/);
    expect(parseParamRule('required-from', ',')).toMatch(/needs its values/);
    expect(parseParamRule('optional', undefined)).toMatch(/needs its default/);
    expect(parseParamRule('maybe', undefined)).toMatch(/unknown rule 'maybe'/);
  });

  it('spells script paths as a URL parser does', () => {
    expect(scriptPath('index.php')).toBe('/index.php');
    expect(scriptPath('/a b/./c.php')).toBe('/a%20b/c.php');
    expect(scriptPath('/x.php?a=1')).toBeNull();
    expect(scriptPath('http://h/x.php')).toBeNull();
  });
});

// A shop whose script reads id (required), sort (asc|desc, required) and page (default 1); every
// other parameter is noise (a session id, a tracking tag). Its pages link the same items in
// many spellings.
const item = (q: URLSearchParams) => `item ${q.get('id')} sorted ${q.get('sort')} page ${q.get('page') ?? '1'}`;
const links = [
  '/item.php?id=1&sort=asc',
  '/item.php?sort=asc&id=1&sid=111',
  '/item.php?page=1&id=1&sort=asc&utm_source=x',
  '/item.php?id=2&sort=desc',
  '/item.php?id=2&sort=desc&page=2',
  '/item.php?sort=asc', // no id: ignored
  '/item.php?id=3&sort=sideways', // not a sort order: ignored
  '/list.php?b=2&a=1', // no rules for this script: as today
];

describe('a crawl under parameter rules', () => {
  let server: Server;
  let port: number;
  let tmp: ReturnType<typeof tempDir>;
  const requested: string[] = [];
  beforeAll(async () => {
    tmp = tempDir();
    server = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      requested.push(u.pathname + u.search);
      const body = u.pathname === '/' ? links.map((l) => `<a href="${l.replace(/&/g, '&amp;')}">x</a>`).join(' ')
        : u.pathname === '/item.php' ? `${item(u.searchParams)} <a href="/">home</a> <a href="/item.php?id=1&amp;sort=asc&amp;sid=222">again</a>`
        : u.pathname === '/list.php' ? 'a list'
        : undefined;
      if (body === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${body}</body></html>`);
    });
    port = await listenLoopback(server);
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    tmp.cleanup();
  });

  const crawl = async (name: string, withRules: boolean) => {
    const db = join(tmp.dir, `${name}.db`);
    expect((await beebot(['seeds', 'add', `http://shop.test:${port}/`, '--short', 'shop'], { db })).code).toBe(0);
    if (withRules) {
      for (const rule of [['id', 'required'], ['sort', 'required-from', 'asc,desc'], ['page', 'optional', '1']]) {
        const r = await beebot(['params', 'set', 'shop', '/item.php', ...rule], { db });
        expect(r.code, r.stderr).toBe(0);
      }
    }
    requested.length = 0;
    const r = await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--resolve', `shop.test:${port}:127.0.0.1`], { db });
    expect(r.code, r.stderr).toBe(0);
    const d = new Database(db, { readonly: true });
    try {
      return {
        db,
        pages: d.prepare('SELECT key, url, status, note FROM pages ORDER BY key').all() as { key: string; url: string; status: string; note: string | null }[],
        requested: [...requested].filter((p) => p !== '/robots.txt').sort(),
      };
    } finally {
      d.close();
    }
  };

  it('collapses equivalent URLs to one page, stores rule-breakers as ignored and fetches only canonical URLs', async () => {
    const c = await crawl('rules', true);
    const base = `http://shop.test:${port}`;
    expect(c.pages.map((p) => [p.key.slice(base.length), p.status, p.note])).toEqual([
      ['/', 'done', null],
      ['/item.php?id=1&page=1&sort=asc', 'done', null],
      ['/item.php?id=2&page=1&sort=desc', 'done', null],
      ['/item.php?id=2&page=2&sort=desc', 'done', null],
      ['/item.php?id=3&sort=sideways', 'ignored', "params: 'sort=sideways' is not one of asc,desc"],
      ['/item.php?sort=asc', 'ignored', "params: 'id' is required"],
      ['/list.php?b=2&a=1', 'done', null],
    ]);
    expect(c.requested).toEqual(['/', '/item.php?id=1&page=1&sort=asc', '/item.php?id=2&page=1&sort=desc', '/item.php?id=2&page=2&sort=desc', '/list.php?b=2&a=1']);
    const st = JSON.parse((await beebot(['status', '--json'], { db: c.db })).stdout);
    expect([st.sites[0].ignored, st.totals.ignored, st.sites[0].pages_fetched]).toEqual([2, 2, 5]);
  });

  it('without rules crawls exactly as before: every spelling is its own page', async () => {
    const c = await crawl('plain', false);
    expect(c.pages.filter((p) => p.status === 'ignored')).toEqual([]);
    // 8 links from the start page, one more spelling on the item pages, the start page
    expect(c.pages.length).toBe(10);
    expect(c.requested.length).toBe(10);
  });

  it('params test prints the key the crawl stored, or why the URL is ignored', async () => {
    const db = join(tmp.dir, 'rules.db');
    const key = await beebot(['params', 'test', `https://www.shop.test:${port}/item.php?sid=1&sort=asc&id=1`], { db });
    expect([key.code, key.stdout]).toEqual([0, `http://shop.test:${port}/item.php?id=1&page=1&sort=asc\n`]);
    const ignored = await beebot(['params', 'test', `http://shop.test:${port}/item.php?id=1`], { db });
    expect([ignored.code, ignored.stdout]).toEqual([0, "ignored: params: 'sort' is required\n"]);
    const json = JSON.parse((await beebot(['params', 'test', '--json', `http://shop.test:${port}/list.php?b=1`], { db })).stdout);
    expect(json).toEqual({ site_id: 1, ignored: false, url: `http://shop.test:${port}/list.php?b=1`, key: `http://shop.test:${port}/list.php?b=1`, note: null });
    const listed = JSON.parse((await beebot(['params', 'list', '--site', 'shop', '--json'], { db })).stdout);
    expect(listed).toEqual([
      { site_id: 1, path: '/item.php', param: 'id', rule: 'required', value: null },
      { site_id: 1, path: '/item.php', param: 'page', rule: 'optional', value: '1' },
      { site_id: 1, path: '/item.php', param: 'sort', rule: 'required-from', value: 'asc,desc' },
    ]);
  });

  it('rejects bad input with one line and exit 2, and removes rules', async () => {
    const db = join(tmp.dir, 'rules.db');
    for (const args of [
      ['params', 'set', 'shop', '/item.php', 'x', 'maybe'],
      ['params', 'set', 'nosuch', '/item.php', 'x', 'required'],
      ['params', 'set', 'shop', '/item.php?x', 'x', 'required'],
      ['params', 'test', 'http://elsewhere.test/'],
      ['params', 'test', 'not a url'],
      ['params', 'remove', 'shop', '/nothing.php'],
    ]) {
      const r = await beebot(args, { db });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    const removed = await beebot(['params', 'remove', 'shop', '/item.php'], { db });
    expect([removed.code, removed.stdout]).toEqual([0, 'removed 3\n']);
    const after = await beebot(['params', 'test', `http://shop.test:${port}/item.php?id=1`], { db });
    expect(after.stdout).toBe(`http://shop.test:${port}/item.php?id=1\n`);
    expect((await beebot(['params', '--help'], { db })).code).toBe(0);
  });
});
