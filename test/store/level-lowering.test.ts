// Levels stay breadth-first levels whatever order the pages were fetched in: a page first found on
// a deeper path (its real parent in flight, or failed and fetched later) moves up when the parent
// is stored, and its fetched descendants and their external links follow. On both stores.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { openDb, sqliteOf, type Db } from '../../src/db/db.js';
import { CrawlOrder } from '../../src/schedule/link-order.js';
import { Frontier } from '../../src/store/frontier.js';
import { QueuedLevels, settleQueuedLevels } from '../../src/store/queued-levels.js';
import type { PullResult } from '../../src/pull/pull-record.js';
import { PullWriter } from '../../src/store/pull-writer.js';
import { insertSites } from '../../src/store/sites.js';
import { urlKey } from '../../src/url/url.js';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';
import { crawlTables } from '../helpers/crawl-tables.js';
import { createDatabase, startPostgres, type PgCluster } from '../helpers/postgres.js';

const tmp = tempDir();
let cluster: PgCluster;
let site: { port: number; close: () => Promise<void> };
beforeAll(async () => {
  [cluster, site] = await Promise.all([startPostgres(), serveSlowParent()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([cluster?.stop(), site?.close()]);
  tmp.cleanup();
});

const A = 'https://a.example';
const key = (path: string) => urlKey(new URL(A + path), 'standard');

function pullOf(id: number, path: string, level: number, internal: string[], external: string[] = []): PullResult {
  return {
    page: { id, siteId: 1, url: A + path, level }, final: null, status: 'done', httpStatus: 200, contentType: 'text/html', bytes: 1,
    encoding: 'utf-8', encodingSource: 'meta', error: null, hops: [], ms: 1, retries: 0, note: null, unavailable: null,
    links: {
      internal: internal.map((p) => ({ url: A + p, key: key(p) })),
      external: external.map((u) => ({ url: u, key: urlKey(new URL(u), 'standard'), host: new URL(u).host, anchor: '', rel: '', tag: 'a' })),
      bad: [],
    },
  };
}

/** /a's link to /x comes last: /x, /y and /z were stored two levels too deep through /b → /c. */
function crawlOutOfOrder(d: Db) {
  insertSites(d, [{ url: new URL(A + '/') }], 'standard');
  const w = new PullWriter(d);
  const id = (path: string) => d.prepare('SELECT id FROM pages WHERE key = ?').pluck().get(key(path)) as number;
  const pull = (path: string, internal: string[], external: string[] = []) => {
    const level = d.prepare('SELECT level FROM pages WHERE key = ?').pluck().get(key(path)) as number;
    w.commit(pullOf(id(path), path, level, internal, external));
    w.group.flush();
  };
  pull('/', ['/a', '/b']);
  pull('/b', ['/c']);
  pull('/c', ['/x']);
  pull('/x', ['/y'], ['https://out.example/x']);
  pull('/y', ['/z']);
  const before = levels(d);
  pull('/a', ['/x']);
  return { before, after: levels(d), id };
}

const levels = (d: Db) => Object.fromEntries((d.prepare('SELECT key, level FROM pages ORDER BY id').raw().all() as [string, number][]).map(([k, l]) => [new URL(k).pathname, l]));

const stores: [string, () => Promise<string>][] = [
  ['SQLite', async () => join(tmp.dir, 'levels.db')],
  ['PostgreSQL', () => createDatabase(cluster)],
];

describe('breadth-first levels after an out-of-order crawl', () => {
  for (const [name, target] of stores) {
    it(`${name}: the page, its fetched descendants and their external links move up; a queued page moved within max-level is next`, async () => {
      const d = openDb(await target());
      try {
        const { before, after, id } = crawlOutOfOrder(d);
        expect(before).toMatchObject({ '/x': 3, '/y': 4, '/z': 5 });
        expect(after).toEqual({ '/': 0, '/a': 1, '/b': 1, '/c': 2, '/x': 2, '/y': 3, '/z': 4 });
        expect(d.prepare('SELECT found_on FROM pages WHERE id = ?').pluck().get(id('/x'))).toBe(id('/a'));
        expect(d.prepare('SELECT level FROM external_links').pluck().all()).toEqual([2]);
        // max-level 4: /z was beyond it, now it is the site's next page
        expect(new Frontier(d).nextPage(1, 4)?.url).toBe(A + '/z');
      } finally {
        d.close();
      }
    }, 60_000);
  }
});

/**
 * The value order, max-level 3: / → /a, /b; /b → /c; /c → /d, /m; /d → /x. Then /a links /m
 * (queued at 3) and /x (queued at 4, beyond max-level), both now one level below /a.
 */
function crawlValueOrdered(d: Db) {
  insertSites(d, [{ url: new URL(A + '/') }], 'standard');
  const w = new PullWriter(d, { order: new CrawlOrder('value'), maxLevel: 3 });
  const nearer = new QueuedLevels(d);
  const id = (path: string) => d.prepare('SELECT id FROM pages WHERE key = ?').pluck().get(key(path)) as number;
  const pull = (path: string, internal: string[]) => {
    // the level the frontier gives the page: with its nearer level
    const level = nearer.levelOf(id(path), d.prepare('SELECT level FROM pages WHERE key = ?').pluck().get(key(path)) as number);
    w.commit(pullOf(id(path), path, level, internal));
    w.group.flush();
  };
  pull('/', ['/a', '/b']);
  pull('/b', ['/c']);
  pull('/c', ['/d', '/m']);
  pull('/d', ['/x']);
  pull('/a', ['/m', '/x']);
  return { pull, id, nearer, w };
}

const waiting = (d: Db) => d.prepare('SELECT page_id, level, found_on FROM queued_levels ORDER BY page_id').raw().all();

describe('a value-ordered crawl: a queued page found nearer the start', () => {
  for (const [name, target] of stores) {
    it(`${name}: keeps its queued level until fetched, then takes the nearer one and its links follow; one it makes eligible moves at once`, async () => {
      const d = openDb(await target());
      try {
        const { pull, id, nearer } = crawlValueOrdered(d);
        // /x was beyond max-level: it moved at once; /m keeps level 3 in the queue, its level 2 waits beside it
        expect(levels(d)).toMatchObject({ '/m': 3, '/x': 2 });
        expect(waiting(d)).toEqual([[id('/m'), 2, id('/a')]]);
        expect(nearer.levelOf(id('/m'), 3)).toBe(2);
        // a new run under the same max-level moves nothing (a resumed crawl orders its queue as before)
        settleQueuedLevels(d, 3, false);
        expect([levels(d)['/m'], waiting(d).length]).toEqual([3, 1]);
        pull('/m', ['/n']);
        expect(levels(d)).toMatchObject({ '/m': 2, '/n': 3, '/x': 2 });
        expect(d.prepare('SELECT found_on FROM pages WHERE id = ?').pluck().get(id('/m'))).toBe(id('/a'));
        expect(waiting(d)).toEqual([]);
        // /x (level 2) queues /p at 3 and finds /n at 3; /c (level 2) finds /p at 3 again: nothing waits
        pull('/x', ['/n', '/p']);
        pull('/c', ['/p']);
        expect(waiting(d)).toEqual([]);
        // /a finds /p at 2: it waits; a run whose order reads the stored levels (bfs) takes it as the page's own
        pull('/a', ['/p']);
        expect(waiting(d)).toEqual([[id('/p'), 2, id('/a')]]);
        settleQueuedLevels(d, 3, true);
        expect([levels(d)['/p'], waiting(d)]).toEqual([2, []]);
      } finally {
        d.close();
      }
    }, 60_000);
  }

  // A crawl alone on its store remembers the nearer levels it knows, so a page found again no
  // nearer asks nothing of the store: what it remembers must follow the store's rows.
  it('SQLite alone: a page skipped after its nearer level was kept still moves up when found nearer; a write that failed forgets what it kept', () => {
    const d = openDb(join(tmp.dir, 'levels-remembered.db'));
    try {
      const { pull, id, w } = crawlValueOrdered(d);
      expect(waiting(d)).toEqual([[id('/m'), 2, id('/a')]]);
      // robots.txt refuses /m: it leaves the queue at level 3; found at 2 again, the fetched-or-skipped row moves
      w.skip({ id: id('/m'), siteId: 1, url: A + '/m', level: 3 }, 'robots-denied', 'refused');
      pull('/b', ['/m']);
      expect(levels(d)['/m']).toBe(2);
      // /x (level 2) queues /p at 3; /a's pull that finds it at 2 fails as it is logged: nothing of it stays
      pull('/x', ['/p']);
      sqliteOf(d).exec(`CREATE TEMP TRIGGER refuse BEFORE INSERT ON fetches BEGIN SELECT RAISE(ABORT, 'disk said no'); END`);
      const p = () => (waiting(d) as [number, number, number][]).filter(([page]) => page === id('/p'));
      expect(() => pull('/a', ['/p'])).toThrow(/disk said no/);
      expect(p()).toEqual([]);
      sqliteOf(d).exec('DROP TRIGGER refuse');
      pull('/a', ['/p']);
      expect(p()).toEqual([[id('/p'), 2, id('/a')]]);
    } finally {
      d.close();
    }
  });
});

/**
 * One site on two hosts (scope domain): a.levels.test's start page links its slow /slow (answered
 * after 2 s), which links b's /x, and b's /a, the head of a chain /a → /b → /c → /x → /y → /z. Two
 * workers: while one waits for /slow, the other walks the chain and finds /x three levels down.
 */
async function serveSlowParent(): Promise<{ port: number; close: () => Promise<void> }> {
  const b = (path: string) => `http://b.levels.test:${port}${path}`;
  const pages: Record<string, () => string> = {
    'a.levels.test/': () => `<a href="/slow">slow</a> <a href="${b('/a')}">a</a>`,
    'a.levels.test/slow': () => `<a href="${b('/x')}">x</a>`,
    'b.levels.test/a': () => '<a href="/b">b</a>',
    'b.levels.test/b': () => '<a href="/c">c</a>',
    'b.levels.test/c': () => '<a href="/x">x</a>',
    'b.levels.test/x': () => '<a href="/y">y</a> <a href="http://out.example/x">out</a>',
    'b.levels.test/y': () => '<a href="/z">z</a>',
    'b.levels.test/z': () => 'the end',
  };
  let port = 0;
  const server = createServer((req, res) => {
    const page = pages[`${(req.headers.host ?? '').replace(/:\d+$/, '')}${new URL(req.url ?? '/', 'http://x').pathname}`];
    if (!page) return void res.writeHead(404).end();
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page()), req.url === '/slow' ? 2000 : 0);
  });
  port = await listenLoopback(server);
  return { port, close: () => new Promise((r) => server.close(() => r())) };
}

describe('breadth-first levels under concurrency', () => {
  const crawlArgs = (concurrency: number) => [
    'crawl', '--budget', 'none', '--delay', '0', '--concurrency', String(concurrency),
    ...['a', 'b'].flatMap((h) => ['--resolve', `${h}.levels.test:${site.port}:127.0.0.1`]),
  ];
  const ok = async (run: Promise<CliResult>) => {
    const r = await run;
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
  };
  const prepare = async (db: string) => {
    await ok(beebot(['seeds', 'add', `http://a.levels.test:${site.port}/`], { db }));
    await ok(beebot(['config', 'set', 'scope', 'domain'], { db }));
  };

  it('two PostgreSQL workers, one held up by a slow parent: the levels, links and edges of a --concurrency 1 crawl', async () => {
    const one = join(tmp.dir, 'one.db');
    await prepare(one);
    await ok(beebot(crawlArgs(1), { db: one }));
    const expected = crawlTables(one);
    expect(expected.internal.filter((p) => p.includes('/x ') || p.includes('/z '))).toEqual([
      `http://b.levels.test:${site.port}/x done 2`, `http://b.levels.test:${site.port}/z done 4`,
    ]);

    const db = await createDatabase(cluster);
    await prepare(db);
    await Promise.all([ok(beebot(crawlArgs(1), { db })), ok(beebot(crawlArgs(1), { db }))]);
    expect(crawlTables(db)).toEqual(expected);
  }, 120_000);
});
