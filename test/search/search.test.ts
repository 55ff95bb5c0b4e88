// Full-text search — text blocks from the page analysis, and a real crawl of a
// loopback site with index-text on, searched through the real CLI (ranking weights, snippet,
// --site, anchors found after their page, malformed queries).
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { extractLinks } from '../../src/page/extract.js';
import { analysePage } from '../../src/page/analyse.js';
import { MAX_BODY_TEXT, PageTextCollector } from '../../src/page/page-text.js';
import { BM25, BLOCK_WEIGHTS } from '../../src/search/weights.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { siteRule } from '../../src/url/scope.js';

describe('text blocks of a page', () => {
  const html = `<html><head><title> The  Zoo </title><style>p { zebra: 1 }</style><script>var walrus = '<a href=/x>';</script></head>
    <body><h1>Animals</h1><nav><a href="/a">Home</a></nav><h2>Big <em>cats</em></h2><p>Lions&amp;tigers</p><div>live</div><div>here</div>
    <template><p>inert</p></template><noscript>no script</noscript> <title>second title</title></body></html>`;

  it('are the first title, the headings and the rest as body; script, style, template and navigation text is left out', () => {
    expect(extractLinks(html, { text: { maxBody: MAX_BODY_TEXT } }).text).toEqual({
      title: 'The Zoo',
      headings: 'Animals Big cats',
      body: 'Lions&tigers live here no script second title',
    });
  });

  it('are the same whether the page is tokenized as UTF-8 bytes or as text', () => {
    const utf8 = '<title>Зоопарк &amp; café</title><h3>Ёж</h3><p>Морж — walrus</p>';
    const asBytes = extractLinks(Buffer.from(utf8, 'utf8'), { text: { maxBody: 100 } }).text;
    expect(asBytes).toEqual({ title: 'Зоопарк & café', headings: 'Ёж', body: 'Морж — walrus' });
    expect(extractLinks(utf8, { text: { maxBody: 100 } }).text).toEqual(asBytes);
  });

  it('are not collected unless asked (the crawl without index-text does no text work)', () => {
    expect(extractLinks(html).text).toBeNull();
    const page = new TextEncoder().encode(html);
    const scope = { rule: siteRule(new URL('http://zoo.test/'), 'host'), nested: [], mode: 'standard' as const };
    expect(analysePage(page, 'http://zoo.test/', 'text/html', scope, 'utf-8').text).toBeNull();
    expect(analysePage(page, 'http://zoo.test/', 'text/html', scope, 'utf-8', { text: true }).text?.title).toBe('The Zoo');
  });

  it('keep the body within its cap', () => {
    const c = new PageTextCollector(50);
    for (let i = 0; i < 1000; i++) if (c.wants()) c.add(`word${i} `);
    const body = c.result().body;
    expect(body.length).toBeLessThanOrEqual(50);
    expect(body.startsWith('word0 word1')).toBe(true);
    const big = extractLinks(`<p>${'lorem ipsum '.repeat(20_000)}</p>`, { text: { maxBody: MAX_BODY_TEXT } }).text!;
    expect(big.body.length).toBeLessThanOrEqual(MAX_BODY_TEXT);
    expect(big.body.length).toBeGreaterThan(MAX_BODY_TEXT - 20);
  });

  it('are weighted title 10, anchors 5, headings 3, body 1 in column order', () => {
    expect(BLOCK_WEIGHTS).toEqual({ title: 10, anchors: 5, headings: 3, body: 1 });
    expect(BM25).toBe('bm25(page_text, 10.0, 5.0, 3.0, 1.0)');
  });
});

// Every page has the same filler, so only where "zebra" stands decides the ranking.
const filler = '<p>' + 'the quick brown fox jumps over the lazy dog '.repeat(5) + '</p>';
const page = (title: string, h: string, body: string) =>
  `<html><head><title>${title}</title></head><body><h2>${h}</h2>${filler}<p>${body}</p></body></html>`;
const zoo: Record<string, string> = {
  '/': page('Zoo home', 'Welcome', '<a href="/t.html">one</a> <a href="/b.html">two</a> <a href="/h.html">three</a> <a href="/a.html">zebra</a> <a href="/late.html">four</a> <a href="/w.html">five</a>'),
  '/t.html': page('Zebra house', 'Stripes', 'nothing here'),
  '/h.html': page('House three', 'Zebra facts', 'nothing here'),
  '/a.html': page('House four', 'Animals', 'nothing here'),
  '/b.html': page('House two', 'Stripes', 'a zebra lives here'),
  '/late.html': page('Late page', 'Nothing', 'nothing here'),
  // Found on level 1 after /late.html was fetched: its words reach /late.html's index row at the crawl's end.
  '/w.html': page('Pool links', 'Links', '<a href="/late.html">walrus pool</a>'),
};
const other: Record<string, string> = { '/': page('Other site', 'Elsewhere', 'a zebra crossing') };

describe('beebot search after a crawl with index-text', () => {
  let server: Server;
  let port: number;
  let tmp: ReturnType<typeof tempDir>;
  let db: string;
  beforeAll(async () => {
    tmp = tempDir();
    server = createServer((req, res) => {
      const site = (req.headers.host ?? '').startsWith('zoo.test') ? zoo : other;
      const body = site[new URL(req.url ?? '/', 'http://x').pathname];
      if (body === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    port = await listenLoopback(server);
    db = join(tmp.dir, 'zoo.db');
    for (const [host, short] of [['zoo.test', 'zoo'], ['other.test', 'other']]) {
      expect((await beebot(['seeds', 'add', `http://${host}:${port}/`, '--short', short], { db })).code).toBe(0);
    }
    expect((await beebot(['config', 'set', 'index-text', 'yes'], { db })).code).toBe(0);
    const r = await beebot(['crawl', '--delay', '0', '--concurrency', '1', '--policy', 'round-robin', '--resolve', `zoo.test:${port}:127.0.0.1`, '--resolve', `other.test:${port}:127.0.0.1`], { db });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    tmp.cleanup();
  });

  const search = async (...args: string[]) => {
    const r = await beebot(['search', ...args, '--json'], { db });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { url: string; title: string; score: number; snippet: string; site_id: number }[];
  };
  const path = (u: string) => new URL(u).host.split('.')[0] + new URL(u).pathname;

  it('ranks a word in the title above anchors, headings and the body', async () => {
    const hits = await search('zebra', '--site', 'zoo');
    // /t.html title, /a.html anchor text "zebra" from /, /h.html heading; then body: /b.html, and / (its link text)
    expect(hits.map((h) => path(h.url))).toEqual(['zoo/t.html', 'zoo/a.html', 'zoo/h.html', 'zoo/b.html', 'zoo/']);
    expect(hits[0]!.title).toBe('Zebra house');
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('gives a snippet with the match in brackets', async () => {
    const [b] = await search('lives', '--site', 'zoo');
    expect(path(b!.url)).toBe('zoo/b.html');
    expect(b!.snippet).toContain('a zebra [lives] here');
    const [t] = await search('zebra', '--limit', '1', '--site', 'zoo');
    expect(t!.snippet).toBe('[Zebra] house');
  });

  it('filters by --site and honours --limit', async () => {
    const all = await search('zebra');
    expect(all.some((h) => path(h.url) === 'other/')).toBe(true);
    expect((await search('zebra', '--site', 'other')).map((h) => path(h.url))).toEqual(['other/']);
    expect(await search('zebra', '--limit', '2')).toHaveLength(2);
  });

  it('indexes anchor texts of links found after their page was fetched', async () => {
    const hits = await search('walrus');
    expect(hits.map((h) => path(h.url))).toEqual(['zoo/late.html', 'zoo/w.html']); // its anchors (5), then the linking page's body (1)
  });

  it('prints one readable line and exits 2 on a malformed query', async () => {
    for (const q of ['"unbalanced', 'nosuchcolumn:zebra', 'AND', ' ']) {
      const r = await beebot(['search', q], { db });
      expect(r.code, q).toBe(2);
      expect(r.stderr.trim().split('\n'), q).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await beebot(['search', 'zebra', '--site', 'nosuch'], { db })).code).toBe(2);
    expect((await beebot(['search', '--help'], { db })).code).toBe(0);
  });

  it('stores the text blocks of every fetched page once, and tells when nothing was indexed', async () => {
    const d = new Database(db, { readonly: true });
    try {
      expect(d.prepare('SELECT count(*) FROM page_text').pluck().get()).toBe(Object.keys(zoo).length + 1);
      expect(d.prepare("SELECT anchors FROM pages WHERE url LIKE '%/late.html'").pluck().get()).toBe('four\nwalrus pool');
    } finally {
      d.close();
    }
    const empty = join(tmp.dir, 'empty.db');
    expect((await beebot(['config', 'set', 'delay', '250'], { db: empty })).code).toBe(0); // search creates no database
    const r = await beebot(['search', 'zebra'], { db: empty });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/^beebot: .*index-text yes.*\n$/);
  });

  it('is switched by the index-text setting: off by default, yes or no', async () => {
    const fresh = join(tmp.dir, 'fresh.db');
    expect((await beebot(['config', 'set', 'delay', '250'], { db: fresh })).code).toBe(0); // config get creates no database
    expect((await beebot(['config', 'get', 'index-text'], { db: fresh })).stdout).toBe('no\n');
    const bad = await beebot(['config', 'set', 'index-text', 'maybe'], { db: fresh });
    expect([bad.code, bad.stderr]).toEqual([2, "beebot: index-text must be one of yes, no, got 'maybe'\n"]);
    expect((await beebot(['config', 'get', 'index-text'], { db })).stdout).toBe('yes\n');
  });
});
