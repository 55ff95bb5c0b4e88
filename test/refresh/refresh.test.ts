// `crawl --refresh` re-crawls what changed, with conditional requests, against a
// real loopback server that answers If-None-Match / If-Modified-Since with 304 and whose pages the
// test changes; the real CLI and a real database.
import Database from 'better-sqlite3';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refreshAction } from '../../src/refresh/action.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { startReplayServer, type ReplayServer } from '../helpers/replay-server.js';
import { conditionalSite, type Page } from '../helpers/conditional-site.js';

describe('what a refresh does with an answer', () => {
  it('304 keeps, 404/410 are gone, failures are retried later, anything else replaces the links', () => {
    expect(refreshAction(304)).toBe('keep');
    expect([refreshAction(404), refreshAction(410)]).toEqual(['gone', 'gone']);
    expect([null, 500, 503, 408, 429, 999].map((s) => refreshAction(s))).toEqual(['retry', 'retry', 'retry', 'retry', 'retry', 'retry']);
    expect([200, 203, 301, 403].map((s) => refreshAction(s))).toEqual(['replace', 'replace', 'replace', 'replace']);
    // a 200 whose text and links have the fingerprint they had: nothing to re-read
    expect([refreshAction(200, true), refreshAction(404, true), refreshAction(503, true)]).toEqual(['keep', 'gone', 'retry']);
  });
});

const T0 = new Date('2026-01-01T00:00:00Z');
const page = (n: number | string, body: string): [string, Page] => [n === 0 ? '/' : `/p${n}`, { body, etag: `"v1-${n}"`, modified: T0 }];
const PAGES = 8;

function initialPages(): Map<string, Page> {
  const home = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i + 1}">page ${i + 1}</a>`).join(' ') + ' <a href="http://ext.test/home">e</a>';
  return new Map([
    page(0, home),
    ...Array.from({ length: PAGES }, (_, i) =>
      page(i + 1, `<a href="/">home</a> <a href="/p${((i + 1) % PAGES) + 1}">next</a> <a href="http://ext.test/${i + 1}">x</a> <a href="mailto:a${i + 1}@b.test">m</a>`),
    ),
  ]);
}

/** The link tables, row for row. */
function dump(db: string): Record<string, unknown[]> {
  const d = new Database(db, { readonly: true });
  try {
    return Object.fromEntries(
      ['pages', 'external_links', 'bad_links', 'edges'].map((t) => [t, d.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).raw().all()]),
    );
  } finally {
    d.close();
  }
}

function query<T>(db: string, sql: string, ...args: unknown[]): T[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all(...args) as T[];
  } finally {
    d.close();
  }
}

describe('crawl --refresh', () => {
  let tmp: ReturnType<typeof tempDir>;
  let site: Awaited<ReturnType<typeof conditionalSite>>;
  let pages: Map<string, Page>;
  let db: string;
  // a refresh checks one page at a time (it refuses --concurrency); the crawls are made deterministic
  const run = (...args: string[]) =>
    beebot(['crawl', '--delay', '0', ...(args[0] === '--refresh' ? [] : ['--concurrency', '1']), '--resolve', `site.test:${site.port}:127.0.0.1`, ...args], { db });

  beforeEach(async () => {
    tmp = tempDir();
    db = join(tmp.dir, 'b.db');
    pages = initialPages();
    site = await conditionalSite(pages);
    await beebot(['seeds', 'add', `http://site.test:${site.port}/`], { db });
    const r = await run('--budget', 'none');
    expect(r.code, r.stderr).toBe(0);
    expect(site.seen.length).toBe(PAGES + 1);
    site.seen.length = 0;
  });

  afterEach(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('of an unchanged site makes only conditional requests, gets only 304s and changes no row of the link tables', async () => {
    const before = dump(db);
    expect(before.edges!.length).toBe(PAGES * 2 + PAGES);
    const r = await run('--refresh');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${PAGES + 1} unchanged (304), 0 re-read with the same text and links, 0 changed, 0 gone`);
    expect(site.seen.map((s) => s.path).sort()).toEqual([...pages.keys()].sort());
    for (const s of site.seen) {
      expect(s.ifNoneMatch).toBe(pages.get(s.path)!.etag);
      expect(s.ifModifiedSince).toBe(T0.toUTCString());
      expect(s.status).toBe(304);
    }
    expect(dump(db)).toEqual(before);
    // the crawl's pull log and budget are not the refresh's
    expect(query<{ n: number }>(db, 'SELECT count(*) AS n FROM fetches')[0]!.n).toBe(PAGES + 1);
    expect(query<{ n: number }>(db, "SELECT count(*) AS n FROM refreshes WHERE action = 'keep'")[0]!.n).toBe(PAGES + 1);
  });

  it('re-parses exactly the 3 changed pages: their links are replaced (the missing ones marked gone), the other rows stay as they were', async () => {
    const before = dump(db);
    const id = (path: string) => query<{ id: number }>(db, 'SELECT id FROM pages WHERE url = ?', `http://site.test:${site.port}${path}`)[0]!.id;
    const changed = ['/p2', '/p5', '/p7'];
    const ids = changed.map(id);
    const modified = new Date('2026-02-01T00:00:00Z');
    // p2: an external link swapped and a new internal page; p5: its mailto gone; p7: everything but home gone
    pages.set('/p2', { body: '<a href="/">home</a> <a href="/p3">next</a> <a href="http://ext.test/new">n</a> <a href="mailto:a2@b.test">m</a> <a href="/fresh">f</a>', etag: '"v2-2"', modified });
    pages.set('/p5', { body: '<a href="/">home</a> <a href="/p6">next</a> <a href="http://ext.test/5">x</a>', etag: '"v2-5"', modified });
    pages.set('/p7', { body: '<a href="/">home again</a>', etag: '"v2-7"', modified });
    const r = await run('--refresh');
    expect(r.code, r.stderr).toBe(0);
    expect(site.seen.filter((s) => s.status === 200).map((s) => s.path).sort()).toEqual(changed);
    expect(site.seen.filter((s) => s.status === 304).length).toBe(PAGES + 1 - 3);
    expect(site.seen.every((s) => s.ifNoneMatch !== undefined)).toBe(true);

    const after = dump(db);
    const other = (t: string, col: number) => (rows: unknown[]) => rows.filter((row) => !ids.includes((row as unknown[])[col] as number));
    expect(other('external_links', 2)(after.external_links!)).toEqual(other('external_links', 2)(before.external_links!));
    expect(other('bad_links', 2)(after.bad_links!)).toEqual(other('bad_links', 2)(before.bad_links!));
    expect(other('edges', 0)(after.edges!)).toEqual(other('edges', 0)(before.edges!));

    const live = (gone: boolean) => (gone ? 'gone_at IS NOT NULL' : 'gone_at IS NULL');
    const ext = (pid: number, gone = false) => query<{ url: string }>(db, `SELECT url FROM external_links WHERE page_id = ? AND ${live(gone)} ORDER BY url`, pid).map((x) => x.url);
    const bad = (pid: number, gone = false) => query<{ raw: string }>(db, `SELECT raw FROM bad_links WHERE page_id = ? AND ${live(gone)}`, pid).map((x) => x.raw);
    const dsts = (pid: number, gone = false) => query<{ url: string }>(db, `SELECT p.url FROM edges e JOIN pages p ON p.id = e.dst WHERE e.src = ? AND e.${live(gone)} ORDER BY p.url`, pid)
      .map((x) => new URL(x.url).pathname);
    expect([ext(ids[0]!), bad(ids[0]!), dsts(ids[0]!)]).toEqual([['http://ext.test/new'], ['mailto:a2@b.test'], ['/', '/fresh', '/p3']]);
    expect([ext(ids[1]!), bad(ids[1]!), dsts(ids[1]!)]).toEqual([['http://ext.test/5'], [], ['/', '/p6']]);
    expect([ext(ids[2]!), bad(ids[2]!), dsts(ids[2]!)]).toEqual([[], [], ['/']]);
    // what left the pages is kept, marked gone
    expect([ext(ids[0]!, true), bad(ids[0]!, true), dsts(ids[0]!, true)]).toEqual([['http://ext.test/2'], [], []]);
    expect([ext(ids[1]!, true), bad(ids[1]!, true), dsts(ids[1]!, true)]).toEqual([[], ['mailto:a5@b.test'], []]);
    expect([ext(ids[2]!, true), bad(ids[2]!, true), dsts(ids[2]!, true)]).toEqual([['http://ext.test/7'], ['mailto:a7@b.test'], ['/p8']]);
    // a link still on the page keeps its row (and when it was found)
    const kept = (rows: unknown[]) => rows.filter((row) => (row as unknown[])[2] === ids[1]);
    expect(kept(after.external_links!)).toEqual(kept(before.external_links!));
    // the new page is queued for the next crawl, which fetches it (and nothing is duplicated)
    expect(query<{ status: string; level: number }>(db, "SELECT status, level FROM pages WHERE url LIKE '%/fresh'")).toEqual([{ status: 'queued', level: 2 }]);
    site.seen.length = 0;
    expect((await run()).code).toBe(0);
    expect(site.seen.map((s) => s.path)).toEqual(['/fresh']);
    expect(query<{ n: number }>(db, 'SELECT count(*) - count(DISTINCT page_id || key) AS n FROM external_links')[0]!.n).toBe(0);

    // the changed pages' new validators are what the next refresh sends
    site.seen.length = 0;
    expect((await run('--refresh')).code).toBe(0);
    expect(site.seen.filter((s) => s.path !== '/fresh').every((s) => s.status === 304)).toBe(true);
    expect(site.seen.find((s) => s.path === '/p2')!.ifNoneMatch).toBe('"v2-2"');
  });

  it('marks a page that now answers 404 as gone, with its links', async () => {
    const before = dump(db);
    const gone = query<{ id: number }>(db, "SELECT id FROM pages WHERE url LIKE '%/p4'")[0]!.id;
    pages.get('/p4')!.status = 404;
    const r = await run('--refresh');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${PAGES} unchanged (304), 0 re-read with the same text and links, 0 changed, 1 gone`);
    expect(query<{ status: string }>(db, 'SELECT status FROM pages WHERE id = ?', gone)).toEqual([{ status: 'gone' }]);
    for (const [t, col, n] of [['external_links', 'page_id', 1], ['bad_links', 'page_id', 1], ['edges', 'src', 2]] as const) {
      expect(query<{ n: number }>(db, `SELECT count(*) AS n FROM ${t} WHERE ${col} = ? AND gone_at IS NULL`, gone)[0]!.n, t).toBe(0);
      expect(query<{ n: number }>(db, `SELECT count(*) AS n FROM ${t} WHERE ${col} = ? AND gone_at IS NOT NULL`, gone)[0]!.n, t).toBe(n);
    }
    const after = dump(db);
    const notGone = (col: number) => (rows: unknown[]) => rows.filter((row) => (row as unknown[])[col] !== gone);
    expect(notGone(2)(after.external_links!)).toEqual(notGone(2)(before.external_links!));
    expect(notGone(0)(after.edges!)).toEqual(notGone(0)(before.edges!));
    expect(after.external_links!.length).toBe(before.external_links!.length);
    // `links --gone` lists it; the default lists what the site links to now
    const listed = async (...a: string[]) => (await beebot(['links', ...a, '--json'], { db })).stdout;
    expect((JSON.parse(await listed('external', '--gone')) as { url: string }[]).map((x) => x.url)).toEqual(['http://ext.test/4']);
    expect((JSON.parse(await listed('internal', '--gone')) as { url: string }[]).map((x) => new URL(x.url).pathname)).toEqual(['/p4']);
    expect(JSON.parse(await listed('external')) as unknown[]).toHaveLength(PAGES);
    // `check` reports the links to it as invalid, with the status the refresh got
    const check = await beebot(['check', '1', '--no-external', '--json'], { db });
    expect(check.code, check.stderr).toBe(1); // invalid links found
    const rows = JSON.parse(check.stdout) as { kind: string; url: string; status: number; linked_from: string }[];
    expect(rows.map((r) => [r.kind, new URL(r.url).pathname, r.status, new URL(r.linked_from).pathname]).sort()).toEqual([
      ['internal', '/p4', 404, '/'],
      ['internal', '/p4', 404, '/p3'],
    ]);
  });

  it('stopped part-way resumes with the pages not yet re-checked, and fetches none twice', async () => {
    const first = await run('--refresh', '--budget', '4');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('budget reached');
    expect(first.stdout).toContain(`left to re-check: ${PAGES + 1 - 4}`);
    expect(site.seen.length).toBe(4);
    const second = await run('--refresh');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('(resumed)');
    expect(second.stdout).toContain('left to re-check: 0');
    expect(site.seen.map((s) => s.path).sort()).toEqual([...pages.keys()].sort());
    // the run is over: the next refresh is a new generation that checks every page again
    site.seen.length = 0;
    const third = await run('--refresh');
    expect(third.stdout).toMatch(/^refresh 2 stopped/);
    expect(site.seen.length).toBe(PAGES + 1);
    // and the crawl's budget was never touched
    expect(query<{ n: number }>(db, 'SELECT count(*) AS n FROM fetches')[0]!.n).toBe(PAGES + 1);
  });

  it('rejects options it has no use for, in one line with exit 2', async () => {
    for (const args of [['--policy', 'ucb1'], ['--budget', 'lots'], ['--max-level', '2'], ['--concurrency', '2']]) {
      const r = await run('--refresh', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    expect(site.seen).toEqual([]);
  });
});

// The replay web's server (test/helpers/replay-server.ts): every file has an ETag and
// Last-Modified from its mtime and size, and `touch` makes it a changed page.
describe('crawl --refresh against the replay web server', () => {
  let tmp: ReturnType<typeof tempDir>;
  let proxy: ReplayServer;

  beforeEach(async () => {
    tmp = tempDir();
    const dir = join(tmp.dir, 'root', 'hosts', 'docs.test');
    mkdirSync(dir, { recursive: true });
    const files = ['index.html', ...Array.from({ length: 9 }, (_, i) => `p${i + 1}.html`)];
    const long = new Date(Date.now() - 3600_000);
    files.forEach((f, i) => {
      const links = i === 0 ? files.slice(1).map((x) => `<a href="${x}">${x}</a>`).join(' ') : `<a href="index.html">up</a> <a href="http://ext${i}.test/">x</a>`;
      writeFileSync(join(dir, f), `<!DOCTYPE html><html><head><title>${f}</title></head><body>${links}</body></html>`);
      utimesSync(join(dir, f), long, long); // so a touch now is a change to the second
    });
    const server = await startReplayServer(join(tmp.dir, 'root'));
    proxy = { ...server, log: () => server.log().filter((l) => / GET docs\.test /.test(l) && !l.includes('/robots.txt')) };
  });

  afterEach(() => {
    proxy.child.kill();
    tmp.cleanup();
  });

  it('an unchanged site answers only 304; touching 3 files re-parses exactly those 3 pages', async () => {
    const db = join(tmp.dir, 'b.db');
    const run = (...args: string[]) => beebot(['crawl', '--delay', '0', '--proxy', `http://127.0.0.1:${proxy.port}`, ...args], { db });
    await beebot(['seeds', 'add', 'http://docs.test/'], { db });
    expect((await run('--budget', 'none')).code).toBe(0);
    const before = dump(db);
    expect(before.external_links!.length).toBe(9);
    // '/' and '/index.html' (the pages' "up" link) are two pages with one file
    const fetched = query<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'done'")[0]!.n;
    expect(fetched).toBe(11);
    // serve.mjs logs every request as 200 and, when it turns out fresh, once more as 304
    const answers = (lines: string[]) => {
      const n = (status: string) => lines.filter((l) => l.startsWith(`${status} `)).length;
      return { ok: n('200') - n('304'), notModified: n('304') };
    };

    let seen = proxy.log().length;
    const unchanged = await run('--refresh');
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(answers(proxy.log().slice(seen))).toEqual({ ok: 0, notModified: fetched });
    expect(dump(db)).toEqual(before);

    const now = new Date();
    for (const f of ['p2.html', 'p5.html', 'p8.html']) utimesSync(join(tmp.dir, 'root', 'hosts', 'docs.test', f), now, now);
    seen = proxy.log().length;
    const touched = await run('--refresh');
    expect(touched.code, touched.stderr).toBe(0);
    expect(touched.stdout).toContain(`${fetched - 3} unchanged (304), 3 re-read with the same text and links, 0 changed, 0 gone`);
    const lines = proxy.log().slice(seen);
    expect(answers(lines)).toEqual({ ok: 3, notModified: fetched - 3 });
    const urls = (status: string) => lines.filter((l) => l.startsWith(`${status} `)).map((l) => l.split(' ').at(-1));
    expect(urls('200').filter((u) => !urls('304').includes(u)).sort()).toEqual(['http://docs.test/p2.html', 'http://docs.test/p5.html', 'http://docs.test/p8.html']);
    // same content, new validators: re-read, and the link tables come out as they were
    expect(dump(db)).toEqual(before);
  });

  // `beebot refresh` finds exactly the changed pages and records their new
  // and gone links, with only conditional requests for the rest.
  it('beebot refresh: touched files are re-read and found the same, edited ones record their new and gone links, the rest answer 304', async () => {
    const db = join(tmp.dir, 'b.db');
    const dir = join(tmp.dir, 'root', 'hosts', 'docs.test');
    const via = ['--proxy', `http://127.0.0.1:${proxy.port}`, '--delay', '0'];
    await beebot(['seeds', 'add', 'http://docs.test/'], { db });
    expect((await beebot(['crawl', '--budget', 'none', ...via], { db })).code).toBe(0);
    const fetched = query<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'done'")[0]!.n;
    const refresh = async () => {
      const seen = proxy.log().length;
      const r = await beebot(['refresh', '--budget-time', '1h', '--json', ...via], { db });
      expect(r.code, r.stderr).toBe(0);
      const lines = proxy.log().slice(seen);
      const fresh = lines.filter((l) => l.startsWith('304 ')).map((l) => l.split(' ').at(-1));
      return { it: JSON.parse(r.stdout) as Record<string, number>, read: lines.filter((l) => l.startsWith('200 ')).map((l) => l.split(' ').at(-1)!).filter((u) => !fresh.includes(u)).sort() };
    };
    const first = await refresh();
    expect(first.read).toEqual([]);
    expect(first.it).toMatchObject({ checked: fetched, unchanged: fetched, changed: 0, links_added: 0, links_gone: 0 });

    const later = new Date();
    for (const f of ['p2.html', 'p5.html']) utimesSync(join(dir, f), later, later);
    // p3 drops its external link; p8 swaps its external link and links p9 too
    writeFileSync(join(dir, 'p3.html'), '<!DOCTYPE html><html><head><title>p3.html</title></head><body><a href="index.html">up</a></body></html>');
    writeFileSync(join(dir, 'p8.html'), '<!DOCTYPE html><html><head><title>p8.html</title></head><body><a href="index.html">up</a> <a href="http://new.test/">n</a> <a href="p9.html">p9</a></body></html>');
    const t2 = new Date().toISOString();
    const second = await refresh();
    expect(second.read).toEqual(['p2.html', 'p3.html', 'p5.html', 'p8.html'].map((f) => `http://docs.test/${f}`));
    // 3 gone: ext3 and ext8 (external), nothing internal; 2 new: new.test and the edge p8 → p9
    expect(second.it).toMatchObject({ checked: fetched, unchanged: fetched - 2, changed: 2, gone: 0, links_added: 2, links_gone: 2 });
    const gone = JSON.parse((await beebot(['links', 'external', '--gone', '--json'], { db })).stdout) as { url: string; source_url: string; gone_at: string; last_seen: string; found_at: string }[];
    expect(gone.map((g) => [g.url, g.source_url])).toEqual([['http://ext3.test/', 'http://docs.test/p3.html'], ['http://ext8.test/', 'http://docs.test/p8.html']]);
    for (const g of gone) expect(g.found_at <= g.last_seen && g.last_seen < g.gone_at).toBe(true);
    const now = JSON.parse((await beebot(['links', 'external', '--json'], { db })).stdout) as { url: string; found_at: string; last_seen: string }[];
    expect(now.map((x) => x.url).sort()).toEqual(['http://ext1.test/', 'http://ext2.test/', 'http://ext4.test/', 'http://ext5.test/', 'http://ext6.test/', 'http://ext7.test/', 'http://ext9.test/', 'http://new.test/']);
    const added = now.find((x) => x.url === 'http://new.test/')!;
    const since = JSON.parse((await beebot(['links', 'external', '--new-since', added.found_at, '--json'], { db })).stdout) as { url: string }[];
    expect(since.map((x) => x.url)).toEqual(['http://new.test/']);
    // every link still there was last seen by this refresh
    expect(now.every((x) => x.last_seen >= t2)).toBe(true);
  });
});
