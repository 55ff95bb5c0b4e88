// Integration: the real CLI crawls a loopback site with known broken links, stores its link graph
// and response headers, then `map` draws it (XML validated with xmllint-wasm, P1–P4 checked on the
// stored graph) and `check` reports its invalid links and invalid external URLs.
import Database from 'better-sqlite3';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { mapSchemaErrors } from '../helpers/map-schema.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { startMapSite, OUTSIDE, SITE, type MapSite } from '../helpers/map-site.js';
import { fromMapJson, parentRuleViolations, powerIteration } from '../helpers/parent-rules.js';


let site: MapSite;
let tmp: ReturnType<typeof tempDir>;
let db: string;

async function crawl(file: string, ...args: string[]): Promise<void> {
  let r = await beebot(['seeds', 'add', site.url('/'), '--short', 'ms'], { db: file });
  expect(r.code, r.stderr).toBe(0);
  // The map's 5xx pages are invalid links at once: one attempt, no retry later (net/failure-rule.ts).
  for (const [k, v] of [['retry-attempts', '1'], ['retry-span', '0']]) expect((await beebot(['config', 'set', k!, v!], { db: file })).code).toBe(0);
  r = await beebot(['crawl', '--delay', '0', ...args, ...site.resolveArgs()], { db: file });
  expect(r.code, r.stderr).toBe(0);
}

const query = <T>(file: string, sql: string, ...params: unknown[]): T[] => {
  const d = new Database(file, { readonly: true });
  try {
    return d.prepare(sql).all(...params) as T[];
  } finally {
    d.close();
  }
};
const path = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  site = await startMapSite();
  tmp = tempDir();
  db = join(tmp.dir, 'site.db');
  await crawl(db);
});
afterAll(async () => {
  await site?.close();
  tmp?.cleanup();
});

describe('the crawl stores the graph and the headers', () => {
  it('keeps every internal edge once per pair, with its anchor text, and the redirect', () => {
    const edges = query<{ src: string; dst: string; anchor: string | null }>(
      db,
      `SELECT s.url AS src, d.url AS dst, e.anchor FROM edges e JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst ORDER BY e.src, e.dst`,
    ).map((e) => `${path(e.src)} -> ${path(e.dst)} ${e.anchor === null ? '(redirect)' : JSON.stringify(e.anchor)}`);
    expect(edges).toContain('/b -> /d "to /d"');
    expect(edges).toContain('/b -> /b "to /b"');
    expect(edges).toContain('/old -> /moved (redirect)');
    expect(edges).toContain('/ -> /missing1 "to /missing1"');
    // /b links /missing1 and /d: each pair once although both also hang under other pages
    expect(edges.filter((e) => e.startsWith('/b -> /missing1')).length).toBe(1);
    expect(edges.filter((e) => e.startsWith('/d -> ')).sort()).toEqual(['/d -> /err500 "to /err500"', '/d -> /g "to /g"', '/d -> /photo "to /photo"']);
  });

  it('records the page facts of every fetch', () => {
    const rows = query<Record<string, string | number | null>>(
      db,
      `SELECT p.url, f.http_status, f.content_type, f.content_length, f.last_modified, f.expires, f.etag, f.cache_control, f.content_language, f.title
         FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq`,
    );
    const a = rows.find((r) => path(String(r.url)) === '/a')!;
    expect(a).toMatchObject({
      http_status: 200, content_type: 'text/html; charset=utf-8', last_modified: 'Tue, 03 Nov 2026 10:00:00 GMT',
      expires: 'Wed, 04 Nov 2026 10:00:00 GMT', etag: '"A-1"', cache_control: 'max-age=3600', content_language: 'en', title: 'A',
    });
    expect(rows.find((r) => path(String(r.url)) === '/report')).toMatchObject({ http_status: 200, content_type: 'application/pdf', content_length: 5000 });
    expect(rows.find((r) => path(String(r.url)) === '/missing1')).toMatchObject({ http_status: 404, etag: null });
  });
});

describe('deleting pages deletes their edges (edges has no foreign keys)', () => {
  it('links delete internal and seeds remove leave no edge behind', async () => {
    const file = join(tmp.dir, 'delete.db');
    await crawl(file, '--max-level', '2');
    const count = (sql: string) => (query<{ n: number }>(file, sql)[0]!).n;
    const into = `SELECT count(*) AS n FROM edges e JOIN pages d ON d.id = e.dst WHERE d.url LIKE '%/g'`;
    expect(count(into)).toBe(2); // /d and /e link /g, registered (level 3, not fetched)
    let r = await beebot(['links', 'delete', 'internal', '--grep', '/g', '--yes'], { db: file });
    expect(r.code, r.stderr).toBe(0);
    expect(count(`SELECT count(*) AS n FROM pages WHERE url LIKE '%/g'`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM edges WHERE dst NOT IN (SELECT id FROM pages)`)).toBe(0);
    expect(count('SELECT count(*) AS n FROM edges')).toBeGreaterThan(10);
    r = await beebot(['seeds', 'remove', 'ms', '--yes'], { db: file });
    expect(r.code, r.stderr).toBe(0);
    expect(count('SELECT count(*) AS n FROM edges')).toBe(0);
  });
});

describe('beebot map', () => {
  type J = { id: number; url: string; depth: number; rank: number; kind: string; children: J[] };

  it('writes XML that validates, with every page once and the parent rules P1–P4 on the stored graph', async () => {
    const xml = join(tmp.dir, 'map.xml');
    let r = await beebot(['map', 'ms', xml], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(await mapSchemaErrors(xml)).toEqual([]);
    const text = readFileSync(xml, 'utf8');
    // each fetched HTML page's <title>; the redirect target's comes from the pull that reached it
    expect(text).toMatch(/<page id="\d+" url="[^"]+\/a" [^>]*>\s*<title>A<\/title>/);
    expect(text).toMatch(/<page id="\d+" url="[^"]+\/moved" [^>]*>\s*<title>Moved<\/title>/);
    const pages = query<{ id: number }>(db, 'SELECT id FROM pages ORDER BY id').map((p) => p.id);
    const ids = [...text.matchAll(/<page id="(\d+)"/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    expect(ids).toEqual(pages);

    const json = join(tmp.dir, 'map.json');
    r = await beebot(['map', 'ms', json], { db });
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(readFileSync(json, 'utf8')) as { root: J; unreached: J[]; pages: number; indexed: number; registered: number; pagerank: string };
    expect([m.pages, m.indexed, m.registered, m.unreached.length, m.pagerank]).toEqual([pages.length, pages.length, 0, 0, 'unnormalized']);
    const edges = query<{ src: number; dst: number }>(db, 'SELECT src, dst FROM edges');
    const start = query<{ id: number }>(db, 'SELECT id FROM pages WHERE level = 0')[0]!.id;
    const { tree, ranks } = fromMapJson(m.root);
    // the ranks are the article's PageRank of the stored graph (independent computation)
    const ref = powerIteration(pages, edges);
    for (const id of pages) expect(ranks.get(id)!).toBeCloseTo(ref.get(id)!, 5);
    expect(parentRuleViolations(tree, start, edges, ranks)).toEqual([]);
    // /d is linked from /a and /b (layer 1): it hangs under whichever ranks higher
    const byPath = new Map<string, J>();
    const index = (p: J, parent: J | null): void => {
      byPath.set(path(p.url), p);
      (p as J & { parent?: J | null }).parent = parent;
      p.children.forEach((c) => index(c, p));
    };
    index(m.root, null);
    const a = byPath.get('/a')!;
    const b = byPath.get('/b')!;
    const expected = a.rank > b.rank || (a.rank === b.rank && a.id < b.id) ? '/a' : '/b';
    expect(path((byPath.get('/d') as J & { parent: J }).parent.url)).toBe(expected);
  });

  it('shows registered pages (linked from the deepest level, not fetched) in a crawl with --max-level 2', async () => {
    const shallow = join(tmp.dir, 'shallow.db');
    await crawl(shallow, '--max-level', '2');
    const xml = join(tmp.dir, 'shallow.xml');
    const r = await beebot(['map', 'ms', xml], { db: shallow });
    expect(r.code, r.stderr).toBe(0);
    expect(await mapSchemaErrors(xml)).toEqual([]);
    const text = readFileSync(xml, 'utf8');
    const registered = [...text.matchAll(/<page id="\d+" url="([^"]+)" kind="registered"/g)].map((x) => path(x[1]!)).sort();
    expect(registered).toEqual(['/err500', '/g']);
    expect(text).toMatch(/registered="2"/);
  });

  it('refuses an unknown format or site with one line and exit 2', async () => {
    let r = await beebot(['map', 'ms', join(tmp.dir, 'map.txt')], { db });
    expect([r.code, r.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(r.stderr).toMatch(/\.xml, \.html or \.json/);
    r = await beebot(['map', 'nope', join(tmp.dir, 'map.xml')], { db });
    expect([r.code, r.stderr.trim()]).toEqual([2, "beebot: no such site: 'nope'"]);
  });
});

describe('beebot check', () => {
  type Row = { kind: string; url: string; status: string; error: string; linked_from: string; anchor: string; checked_at: string };

  it('reports exactly the 4xx/5xx targets as invalid internal links, each with every linking page, and the broken outside URLs', async () => {
    const csvFile = join(tmp.dir, 'check.csv');
    const r = await beebot(['check', 'ms', csvFile, ...site.resolveArgs()], { db });
    expect(r.code, r.stderr).toBe(1); // invalid links found: the output is written all the same
    const raw = readFileSync(csvFile, 'utf8');
    expect(raw.startsWith('kind,url,status,error,linked_from,anchor,checked_at\r\n')).toBe(true);
    const rows = parse(raw, { columns: true }) as Row[];
    const internal = rows.filter((x) => x.kind === 'internal');
    // the server's own record of what it answered with an error
    expect(new Set(internal.map((x) => path(x.url)))).toEqual(site.brokenSite);
    expect(site.brokenSite).toEqual(new Set(['/missing1', '/missing2', '/missing3', '/err500', '/gone-after-move', '/gone-target']));
    const from = (p: string) => internal.filter((x) => path(x.url) === p).map((x) => path(x.linked_from)).sort();
    expect(from('/missing1')).toEqual(['/', '/b']);
    expect(from('/err500')).toEqual(['/d']);
    expect(from('/gone-after-move')).toEqual(['/moved']);
    // behind a redirect (/old-broken → /gone-target): the page linking the redirecting URL
    expect(from('/gone-target')).toEqual(['/c']);
    expect(internal.find((x) => path(x.url) === '/missing1')!.status).toBe('404');
    const external = rows.filter((x) => x.kind === 'external');
    expect([...new Set(external.map((x) => path(x.url)))].sort()).toEqual(['/get-gone', '/gone']);
    expect(external.filter((x) => path(x.url) === '/gone').map((x) => path(x.linked_from)).sort()).toEqual(['/', '/a']);
    expect(r.stderr).toMatch(/ms: 7 invalid internal links to 6 pages; 2 of 4 external URLs invalid \(4 checked now, 0 cached\)/);
    // each distinct outside URL once: HEAD, and GET only after HEAD failed or was refused
    expect(site.outsideRequests.sort()).toEqual(['GET /get-gone', 'GET /gone', 'HEAD /get-gone', 'HEAD /gone', 'HEAD /head405', 'GET /head405', 'HEAD /ok'].sort());
  });

  it('answers from the cache, rechecks on --recheck, and caps with --max', async () => {
    site.outsideRequests.length = 0;
    let r = await beebot(['check', 'ms', '--json', ...site.resolveArgs()], { db });
    expect(r.code, r.stderr).toBe(1);
    expect(site.outsideRequests).toEqual([]);
    const rows = JSON.parse(r.stdout) as Row[];
    expect(rows.filter((x) => x.kind === 'external').every((x) => x.checked_at !== null)).toBe(true);
    expect(r.stderr).toMatch(/0 checked now, 4 cached/);
    r = await beebot(['check', 'ms', '--recheck', '--max', '1', '-', ...site.resolveArgs()], { db });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/1 of 1 external URL invalid|0 of 1 external URL invalid/);
    expect(r.stderr).toMatch(/1 checked now, 0 cached, 3 not checked: --max/);
    expect(r.stdout.split('\r\n')[0]).toBe('kind,url,status,error,linked_from,anchor,checked_at');
    // the first outside URL stored is /ok (linked first from the start page)
    expect(site.outsideRequests).toEqual(['HEAD /ok']);
  });

  it('writes JSON Lines and a self-contained HTML page; --no-external makes no request', async () => {
    site.outsideRequests.length = 0;
    const jsonl = join(tmp.dir, 'check.jsonl');
    let r = await beebot(['check', 'ms', jsonl, '--no-external'], { db });
    expect(r.code, r.stderr).toBe(1);
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
    expect(lines.length).toBe(7);
    expect(lines.every((l) => l.kind === 'internal')).toBe(true);
    expect(site.outsideRequests).toEqual([]);
    const html = join(tmp.dir, 'check.html');
    r = await beebot(['check', 'ms', html, ...site.resolveArgs()], { db });
    expect(r.code, r.stderr).toBe(1);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain(`http://${OUTSIDE}:${site.port}/gone`);
    expect(page).toContain(`http://${SITE}:${site.port}/missing2`);
    expect(page).not.toMatch(/<(script|link|img)\b/);
  });

  it('checks an outside URL whose body trickles forever by its status, without waiting for the body, even when the garbage collector runs', async () => {
    // HEAD refused, then GET answers 200 and sends a byte every 100 ms, never ending: each byte
    // restarts undici's body timeout, so only the check's own deadline ends the request.
    const server = createServer((req, res) => {
      if ((req.headers.host ?? '').startsWith('site.test')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="http://slow.test:${port}/x">slow</a>`);
      if (req.method === 'HEAD') return void res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('a'), 100);
      res.on('close', () => clearInterval(timer));
    });
    const port = await listenLoopback(server);
    try {
      const file = join(tmp.dir, 'slow.db');
      const resolve = ['site.test', 'slow.test'].flatMap((h) => ['--resolve', `${h}:${port}:127.0.0.1`]);
      for (const args of [['seeds', 'add', `http://site.test:${port}/`], ['crawl', '--delay', '0', ...resolve]]) {
        const r = await beebot(args, { db: file });
        expect(r.code, r.stderr).toBe(0);
      }
      // A garbage collection every 50 ms: a deadline that can be collected before it fires is lost.
      const gc = join(tmp.dir, 'gc.cjs');
      writeFileSync(gc, 'setInterval(() => globalThis.gc(), 50).unref();\n');
      const started = Date.now();
      const run = beebot(['check', '1', '--json', '--delay', '0', ...resolve], {
        db: file, env: { NODE_OPTIONS: `--expose-gc --require ${gc}` },
      });
      const killer = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
      const r = await run;
      clearTimeout(killer);
      // The answer's status counts, the body is never waited for (the request's deadline at the
      // default timeouts would be 25 s).
      expect(r.signal, 'still waiting after 20 s').toBeNull();
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(r.stderr).toMatch(/0 of 1 external URL invalid \(1 checked now, 0 cached\)/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
    }
  }, 30_000);

  it("spends at most page-timeout on one outside URL, its redirects and the GET after HEAD included", async () => {
    // Every hop answers after 700 ms, well inside the headers timeout, with a redirect to the next:
    // eleven hops for HEAD and eleven for GET would hold the URL 15 s.
    const server = createServer((req, res) => {
      if ((req.headers.host ?? '').startsWith('site.test')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="http://slow.test:${port}/hop/0">slow</a>`);
      const n = Number(/\/hop\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      const timer = setTimeout(() => res.writeHead(302, { location: `/hop/${n + 1}` }).end(), 700);
      res.on('close', () => clearTimeout(timer));
    });
    const port = await listenLoopback(server);
    try {
      const file = join(tmp.dir, 'hops.db');
      const resolve = ['site.test', 'slow.test'].flatMap((h) => ['--resolve', `${h}:${port}:127.0.0.1`]);
      for (const args of [['seeds', 'add', `http://site.test:${port}/`], ['config', 'set', 'page-timeout', '3000'], ['crawl', '--delay', '0', ...resolve]]) {
        const r = await beebot(args, { db: file });
        expect(r.code, r.stderr).toBe(0);
      }
      const started = Date.now();
      const r = await beebot(['check', '1', '--json', '--delay', '0', ...resolve], { db: file });
      const took = Date.now() - started;
      expect(r.code, r.stderr).toBe(1);
      expect((JSON.parse(r.stdout) as Row[]).map((x) => [x.kind, x.error])).toEqual([['external', 'timeout: no answer within 3 s']]);
      expect(took).toBeLessThan(8_000);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
    }
  }, 30_000);

  it('refuses bad arguments with one line and exit 2', async () => {
    for (const args of [['check', 'ms', 'out.txt'], ['check', 'ms', '--max', 'x'], ['check', 'nope'], ['check', 'ms', 'x.csv', '--json']]) {
      const r = await beebot(args, { db });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n').length, r.stderr).toBeLessThanOrEqual(2);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
