// Link history on re-read (new, gone, back again) and `beebot refresh` resuming a stopped
// iteration, with the real CLI, a real database and a loopback site honouring conditional requests.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beebot, tempDir } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';
import { conditionalSite, type Page } from '../helpers/conditional-site.js';
import { body, PAGES, refreshSite, T0 } from '../helpers/refresh-site.js';

describe('beebot refresh', () => {
  let tmp: ReturnType<typeof tempDir>;
  let pages: Map<string, Page>;
  let server: Awaited<ReturnType<typeof conditionalSite>>;
  let db: string;
  const via = () => ['--resolve', `site.test:${server.port}:127.0.0.1`, '--delay', '0'];

  const start = async (delayMs = 0) => {
    server = await conditionalSite(pages, delayMs);
    await beebot(['seeds', 'add', `http://site.test:${server.port}/`], { db });
    expect((await beebot(['crawl', '--budget', 'none', '--concurrency', '1', ...via()], { db })).code).toBe(0);
    server.seen.length = 0;
  };

  beforeEach(() => {
    tmp = tempDir();
    db = join(tmp.dir, 'b.db');
    pages = refreshSite();
  });

  afterEach(async () => {
    await server?.close();
    tmp.cleanup();
  });

  it('keeps each link\'s history: first seen, gone (with when it was last seen), back again', async () => {
    await start();
    const refresh = async () => {
      const r = await beebot(['refresh', '--budget-time', '1h', '--json', ...via()], { db });
      expect(r.code, r.stderr).toBe(0);
      const it = JSON.parse(r.stdout) as Record<string, number>;
      // piped: one tab-separated line per check on stderr (iteration, HTTP status, outcome, URL)
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(it.checked!);
      expect(lines.every((l) => /^\d+\t(\d+|-)\t[^\t]+\thttp:\/\/site\.test:\d+\//.test(l))).toBe(true);
      expect(lines.filter((l) => /\t(changed|new) /.test(l))).toHaveLength(it.changed!);
      return it;
    };
    const ext = () => rows<{ url: string; found_at: string; last_seen: string | null; gone_at: string | null }>(db, "SELECT url, found_at, last_seen, gone_at FROM external_links WHERE url LIKE '%/3' OR url LIKE '%/new'");
    const edge = () => rows<{ found_at: string | null; last_seen: string | null; gone_at: string | null }>(db, "SELECT e.found_at, e.last_seen, e.gone_at FROM edges e JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst WHERE s.url LIKE '%/p3' AND d.url LIKE '%/p4'");
    const [first] = ext();
    expect(first).toMatchObject({ url: 'http://ext.test/3', last_seen: null, gone_at: null });
    expect(edge()).toEqual([{ found_at: null, last_seen: null, gone_at: null }]);
    const crawledAt = rows<{ at: string }>(db, "SELECT fetched_at AS at FROM pages WHERE url LIKE '%/p3'")[0]!.at;

    // p3 loses its external link and its "next" link, and gains another external link
    pages.set('/p3', { body: '<p>page 3 text</p><a href="/">home</a> <a href="http://ext.test/new">n</a>', etag: '"v2-3"', modified: new Date('2026-02-01T00:00:00Z') });
    const t1 = new Date().toISOString();
    expect(await refresh()).toMatchObject({ changed: 1, unchanged: PAGES, links_added: 1, links_gone: 2 });
    const gone = ext();
    expect(gone.map((x) => [x.url, x.gone_at !== null])).toEqual([['http://ext.test/3', true], ['http://ext.test/new', false]]);
    // gone: last seen when p3 was last read with it (the crawl); the new link was first seen now
    expect(gone[0]!.last_seen).toBe(crawledAt);
    expect(gone[0]!.found_at).toBe(first!.found_at);
    expect(gone[0]!.gone_at! >= t1).toBe(true);
    expect(gone[1]!.found_at >= t1).toBe(true);
    // the crawl-found edge got the time it was found (its page's read) before it went
    expect(edge()).toEqual([{ found_at: crawledAt, last_seen: crawledAt, gone_at: gone[0]!.gone_at }]);

    // a refresh with nothing changed: the unchanged check moves last_seen, not the rows
    const t2 = new Date().toISOString();
    expect(await refresh()).toMatchObject({ changed: 0, unchanged: PAGES + 1 });
    const listed = JSON.parse((await beebot(['links', 'external', '--grep', 'ext.test/new', '--json'], { db })).stdout) as { last_seen: string }[];
    expect(listed[0]!.last_seen >= t2).toBe(true);

    // a page found by a refresh is read by the next one (unread pages first), then kept like the others
    pages.set('/p5', { body: body(5, ' <a href="/fresh">f</a>'), etag: '"v2-5"', modified: new Date('2026-02-01T00:00:00Z') });
    pages.set('/fresh', { body: '<p>fresh</p><a href="http://ext.test/fresh">f</a>', etag: '"f"', modified: T0 });
    expect(await refresh()).toMatchObject({ changed: 1, links_added: 1 });
    expect(rows<{ status: string }>(db, "SELECT status FROM pages WHERE url LIKE '%/fresh'")).toEqual([{ status: 'queued' }]);
    expect(await refresh()).toMatchObject({ checked: PAGES + 2, changed: 1, links_added: 1 });
    expect(rows<{ status: string }>(db, "SELECT status FROM pages WHERE url LIKE '%/fresh'")).toEqual([{ status: 'done' }]);
    // its first read left it fresh (scent 0, then ΔS 1); what it held went to the page that found it
    const scent = (path: string) => rows<{ s: number }>(db, `SELECT scent AS s FROM pages WHERE url LIKE '%${path}'`)[0]!.s;
    const read = rows<{ changed: number; scent: number }>(db, "SELECT changed, r.scent FROM refreshes r JOIN pages p ON p.id = r.page_id WHERE p.url LIKE '%/fresh'")[0]!;
    expect([read.scent, scent('/fresh')]).toEqual([0, 1]);
    expect(read.changed).toBeGreaterThan(0);
    // p5, checked after it in that iteration (unread pages go first): (its scent + ΔS + the credit) / 2, then ΔS
    const [now5, before5] = rows<{ scent: number }>(db, "SELECT r.scent FROM refreshes r JOIN pages p ON p.id = r.page_id WHERE p.url LIKE '%/p5' ORDER BY r.seq DESC LIMIT 2").map((x) => x.scent);
    expect(now5).toBeCloseTo((before5! + 1 + Math.log2(1 + read.changed)) / 2, 9);
    expect(scent('/p5')).toBeCloseTo(now5! + 1, 9);
    expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM external_links WHERE url = 'http://ext.test/fresh'")[0]!.n).toBe(1);

    // back again: the old link is live again, first seen when it was first seen; the new one goes
    pages.set('/p3', { body: body(3), etag: '"v3-3"', modified: new Date('2026-03-01T00:00:00Z') });
    expect(await refresh()).toMatchObject({ changed: 1, links_added: 2, links_gone: 1 });
    const back = ext();
    expect(back.map((x) => [x.url, x.gone_at === null, x.last_seen === null])).toEqual([['http://ext.test/3', true, true], ['http://ext.test/new', false, false]]);
    expect(back[0]!.found_at).toBe(first!.found_at);
    expect(edge()).toEqual([{ found_at: crawledAt, last_seen: null, gone_at: null }]);
    // `links --gone` and `--new-since`
    const out = async (...a: string[]) => JSON.parse((await beebot(['links', 'external', ...a, '--json'], { db })).stdout) as { url: string }[];
    expect((await out('--gone')).map((x) => x.url)).toEqual(['http://ext.test/new']);
    expect((await out('--new-since', t1)).map((x) => x.url)).toEqual(['http://ext.test/fresh']);
    expect((await out('--new-since', t1, '--gone')).map((x) => x.url)).toEqual(['http://ext.test/new']);
    // no row was ever duplicated
    expect(rows<{ n: number }>(db, 'SELECT count(*) - count(DISTINCT page_id || key) AS n FROM external_links')[0]!.n).toBe(0);
  });

  it('a killed iteration resumes its own plan: every planned page checked once, ΔS given once', async () => {
    await start(150);
    const args = ['refresh', '--budget-time', '1h', '--delta', '3', '--cost', '0,100', '--json', ...via()];
    const run = beebot(args, { db });
    while (server.seen.length < 4) await new Promise((r) => setTimeout(r, 10));
    run.child.kill('SIGKILL');
    expect((await run).signal).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 400)); // a request in flight at the kill is answered (and logged) late
    const asked = server.seen.length;
    // what was committed before the kill (checks are committed in groups: the last may be lost, and is redone)
    const before = rows<{ n: number }>(db, 'SELECT count(*) AS n FROM refreshes')[0]!.n;
    expect(before).toBeLessThan(PAGES + 1);
    const again = await beebot(args, { db });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ iteration: 1, resumed: true, finished: true, checked: PAGES + 1 - before, unchanged: PAGES + 1 - before });
    // one log row per planned page, the plan as stored when the iteration began
    const log = rows<{ page_id: number }>(db, 'SELECT page_id FROM refreshes WHERE gen = 1 ORDER BY page_id');
    const plan = rows<{ page_id: number }>(db, 'SELECT page_id FROM refresh_plan WHERE gen = 1 ORDER BY page_id');
    expect(log).toEqual(plan);
    expect(plan).toHaveLength(PAGES + 1);
    // the resumed run asked exactly the planned pages without a log row
    expect(server.seen.length).toBe(asked + PAGES + 1 - before);
    // scent: first the value of the page's text, halved by the check (nothing found), plus ΔS once
    const s = rows<{ scent: number; size: number }>(db, "SELECT scent, text_size AS size FROM pages WHERE status = 'done'");
    for (const x of s) expect(x.scent).toBeCloseTo(Math.log2(1 + x.size) / 2 + 3, 9);
    expect(rows<{ n: number }>(db, 'SELECT count(*) AS n FROM refresh_runs WHERE finished_at IS NULL')[0]!.n).toBe(0);
  });

  it('rejects bad options in one line with exit 2, before touching the network', async () => {
    await start();
    for (const a of [['--delta', '-1'], ['--budget-time', 'soon'], ['--schedule', 'random'], ['--cost', 'x'], ['--iterations', '0'], ['--site', 'nope'], ['--until', 'tomorrowish']]) {
      const r = await beebot(['refresh', ...a, ...via()], { db });
      expect(r.code, a.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n').filter((l) => !l.startsWith('(run with')), a.join(' ')).toHaveLength(1);
    }
    expect(server.seen).toEqual([]);
  });
});
