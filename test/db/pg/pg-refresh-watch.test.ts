// `beebot refresh` and `beebot watch` on PostgreSQL. One crawl, held by a SQLite file and
// (copied with `beebot db copy`) by a PostgreSQL database; both refreshed and watched by the real
// CLI against the same state of a loopback site honouring conditional requests. What they store
// must be the same, timings and clock times aside.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { beebot, tempDir, type CliResult } from '../../helpers/cli.js';
import { rows } from '../../helpers/read-db.js';
import { openDb } from '../../../src/db/db.js';
import { readSettings, type Settings } from '../../../src/store/settings.js';
import { refresh } from '../../../src/refresh/full-pass.js';
import { parseResolve } from '../../../src/cli/crawl-command.js';
import { conditionalSite, type Page } from '../../helpers/conditional-site.js';
import { body, PAGES, refreshSite, T0 } from '../../helpers/refresh-site.js';
import { createDatabase, startPostgres, type PgCluster } from '../../helpers/postgres.js';

const T1 = new Date('2026-02-01T00:00:00Z');

/** What refresh and watch stored, without timings and clock times (whether a time is set is kept). */
function stored(target: string): Record<string, unknown[]> {
  const q = (sql: string) => rows(target, sql);
  return {
    runs: q(`SELECT gen, kind, schedule, sites, budget_ms, delta, value, cost_a, cost_b, finished_at IS NULL AS open FROM refresh_runs ORDER BY gen`),
    // by page, not by rank or check order: a schedule ranks pages by their check times too (change
    // rates, last checks), which differ between two runs when they tie or nearly so
    plan: q(`SELECT x.gen, p.url, x.est_ms FROM refresh_plan x JOIN pages p ON p.id = x.page_id ORDER BY x.gen, p.url`),
    log: q(
      `SELECT r.gen, p.url, r.action, r.http_status, r.error, r.etag, r.last_modified, r.bytes, r.est_ms, r.changed, r.links_added, r.links_gone, r.scent
         FROM refreshes r JOIN pages p ON p.id = r.page_id ORDER BY r.gen, p.url`,
    ),
    pages: q(`SELECT url, status, level, scent, fingerprint, text_size, bytes, gone_at IS NULL AS live, fetched_at IS NULL AS unread FROM pages ORDER BY url`),
    edges: q(
      `SELECT s.url AS src, d.url AS dst, e.found_at IS NULL AS f, e.last_seen IS NULL AS l, e.gone_at IS NULL AS g
         FROM edges e JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst ORDER BY s.url, d.url`,
    ),
    external: q(`SELECT p.url AS page, e.url, e.last_seen IS NULL AS l, e.gone_at IS NULL AS g FROM external_links e JOIN pages p ON p.id = e.page_id ORDER BY p.url, e.url`),
    hubs: q(`SELECT p.url, h.grp, h.added, h.removed_at IS NULL AS live, h.first_check IS NULL AS unchecked FROM watch_hubs h JOIN pages p ON p.id = h.page_id ORDER BY p.url`),
    items: q(`SELECT p.url AS hub, i.kind, i.url, i.grp, i.source, i.to_t = i.found_at AS t FROM watch_items i JOIN pages p ON p.id = i.hub_id ORDER BY p.url, i.kind, i.url`),
    checks: q(
      `SELECT p.url AS hub, c.action, c.http_status, c.new_items, c.schedule, c.next_check - c.at AS wait, c.etag, c.last_modified
         FROM watch_checks c JOIN pages p ON p.id = c.hub_id ORDER BY c.seq`,
    ),
  };
}

async function ok(run: Promise<CliResult>): Promise<CliResult> {
  const r = await run;
  expect(r.code, r.stderr.slice(-1500)).toBe(0);
  return r;
}

const jsonLines = (out: string) => out.trim().split('\n').filter((l) => l.startsWith('{') || l.startsWith('[')).map((l) => JSON.parse(l) as unknown);

/** A watch's JSON output without the clock's times. */
function untimed(out: string): unknown[] {
  return jsonLines(out).map((x) => {
    const o = x as Record<string, unknown>;
    if (o.summary) {
      const { ms: _ms, mean_delay_ms: _d, ...rest } = o.summary as Record<string, unknown>;
      return { summary: rest };
    }
    const { at: _at, next_check: _n, items, ...rest } = o;
    return { ...rest, items: (items as Record<string, unknown>[]).map(({ from: _f, to: _t, appeared: _a, ...i }) => i) };
  });
}

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

describe('beebot refresh and watch on PostgreSQL', () => {
  let tmp: ReturnType<typeof tempDir>;
  let pages: Map<string, Page>;
  let server: Awaited<ReturnType<typeof conditionalSite>>;
  let lite: string;
  let pg: string;
  const via = () => ['--resolve', `site.test:${server.port}:127.0.0.1`, '--delay', '0'];
  const url = (path: string) => `http://site.test:${server.port}${path}`;

  /** The same crawl in both stores: crawled into SQLite, copied to PostgreSQL. */
  const start = async (delayMs = 0) => {
    server = await conditionalSite(pages, delayMs);
    await ok(beebot(['seeds', 'add', url('/')], { db: lite }));
    await ok(beebot(['crawl', '--budget', 'none', '--concurrency', '1', ...via()], { db: lite }));
    pg = await createDatabase(cluster);
    await ok(beebot(['db', 'copy', lite, pg], { db: lite }));
    server.seen.length = 0;
  };

  /** The same command on both stores, one after the other, against the same site: their outputs. */
  const both = async (args: string[]): Promise<[CliResult, CliResult]> => [await ok(beebot(args, { db: lite })), await ok(beebot(args, { db: pg }))];

  beforeEach(() => {
    tmp = tempDir();
    lite = join(tmp.dir, 'b.db');
    pages = refreshSite();
  });

  afterEach(async () => {
    await server?.close();
    tmp.cleanup();
  });

  it('every schedule, --site, --iterations and a watch round store the same on both stores', async () => {
    await start();
    // p3 loses its external and "next" links and gains one; p5 links a new page; p7 is gone; p9 answers 200 unchanged
    pages.set('/p3', { body: '<p>page 3 text</p><a href="/">home</a> <a href="http://ext.test/new">n</a>', etag: '"v2-3"', modified: T1 });
    pages.set('/p5', { body: body(5, ' <a href="/fresh">f</a>'), etag: '"v2-5"', modified: T1 });
    pages.set('/fresh', { body: '<p>fresh</p><a href="http://ext.test/fresh">f</a>', etag: '"f"', modified: T0 });
    pages.set('/p7', { body: '', etag: '"x"', modified: T0, status: 404 });
    pages.set('/p9', { body: body(9), etag: '"v2-9"', modified: T1 });
    const refresh = ['refresh', '--cost', '0,100', '--json', ...via()];
    const runs: [string[], number][] = [
      [['--schedule', 'scent', '--budget-time', '1h', '--iterations', '2'], 2],
      [['--schedule', 'uniform', '--budget-time', '1h', '--delta', '0.5', '--value', 'linear'], 1],
      [['--schedule', 'change-rate', '--budget-time', '1h', '--site', url('/'), '--value', 'binary'], 1],
    ];
    for (const [args, n] of runs) {
      const [a, b] = await both([...refresh, ...args]);
      const out = jsonLines(a.stdout);
      expect(out).toHaveLength(n);
      expect(jsonLines(b.stdout)).toEqual(out);
      // p3 comes back as it was between the runs: its old links are live again, the new one goes
      pages.set('/p3', { body: body(3), etag: '"v3-3"', modified: new Date('2026-03-01T00:00:00Z') });
    }
    const [first] = jsonLines((await beebot([...refresh, ...runs[0]![0]], { db: pg })).stdout) as Record<string, number>[];
    expect(first).toMatchObject({ iteration: 5 }); // a fifth iteration: gen is max + 1 on PostgreSQL too
    await ok(beebot([...refresh, ...runs[0]![0]], { db: lite }));

    const a = stored(lite);
    const b = stored(pg);
    // the refresh did what the site changed
    expect(a.runs).toHaveLength(6);
    expect(a.log.filter((r) => (r as { action: string }).action === 'gone')).toEqual([expect.objectContaining({ url: url('/p7'), http_status: 404 })]);
    expect(a.pages.find((p) => (p as { url: string }).url === url('/p7'))).toMatchObject({ status: 'gone', live: 0 });
    expect(a.pages.find((p) => (p as { url: string }).url === url('/fresh'))).toMatchObject({ status: 'done', unread: 0 });
    expect(a.external.filter((e) => (e as { g: number }).g === 0).map((e) => (e as { url: string }).url).sort()).toEqual(['http://ext.test/7', 'http://ext.test/new']);
    expect(a.plan.length).toBeGreaterThan(0);
    for (const t of ['runs', 'plan', 'log', 'pages', 'edges', 'external'] as const) expect(b[t], t).toEqual(a[t]);
    // a time budget for 5 checks by the model (100 ms each) plans 5 of the pages on both
    const [ba, bb] = await both([...refresh, '--budget-time', '500ms']);
    expect(jsonLines(ba.stdout)).toEqual([expect.objectContaining({ planned: 5, checked: 5, est_ms: 500, finished: true })]);
    expect(jsonLines(bb.stdout)).toEqual(jsonLines(ba.stdout));

    // A watch round: the home page is watched by hand and shows two new links; p3 and p5 (new links
    // on re-checks) are added automatically.
    pages.set('/', { body: pages.get('/')!.body + ' <a href="/p-new">new</a> <a href="http://ext.test/hub-new">e</a>', etag: '"h2"', modified: T1 });
    pages.set('/p-new', { body: '<p>new</p>', etag: '"n"', modified: T1 });
    const [addA, addB] = await both(['watch', 'add', url('/')]);
    expect(addB.stdout).toBe(addA.stdout);
    const [wa, wb] = await both(['watch', '--schedule', 'fixed', '--interval', '1h', '--for', '1s', '--json', ...via()]);
    const watched = untimed(wa.stdout);
    expect(watched.at(-1)).toMatchObject({ summary: { hubs_added: 2, checks: 3, hits: 1, items: 2 } });
    expect(untimed(wb.stdout)).toEqual(watched);
    // the poisson and learned schedules, each on a hub added just before it (due at once; the
    // others wait an hour): once checked, the hub waits the fixed interval (too little history).
    // The learned one's group models read the items by group.
    await both(['watch', 'add', url('/p2')]);
    const [pa, pb] = await both(['watch', '--schedule', 'poisson', '--interval', '1h', '--min', '1m', '--max', '2h', '--for', '1s', '--json', ...via()]);
    expect(untimed(pa.stdout)).toEqual([expect.objectContaining({ hub: url('/p2'), schedule: 'poisson' }), expect.anything()]);
    expect(untimed(pb.stdout)).toEqual(untimed(pa.stdout));
    await both(['watch', 'add', url('/p1')]);
    const learned = ['watch', '--schedule', 'learned', '--rule', 'sqrt', '--interval', '1h', '--min', '1m', '--max', '2h', '--min-group-items', '1', '--for', '1s', '--json', ...via()];
    const [la, lb] = await both(learned);
    expect(untimed(la.stdout)).toEqual([expect.objectContaining({ hub: url('/p1'), schedule: 'learned-fixed' }), expect.anything()]);
    expect(untimed(lb.stdout)).toEqual(untimed(la.stdout));
    const list = async (db: string) =>
      (JSON.parse((await ok(beebot(['watch', 'list', '--json'], { db }))).stdout) as Record<string, unknown>[]).map(({ last_check: _l, next_check: _n, ...h }) => h);
    expect(await list(pg)).toEqual(await list(lite));
    expect((await list(lite)).map((h) => [h.url, h.added])).toEqual([[url('/'), 'manual'], [url('/p1'), 'manual'], [url('/p2'), 'manual'], [url('/p3'), 'auto'], [url('/p5'), 'auto']]);
    const [ra, rb] = await both(['watch', 'remove', url('/p3')]);
    expect(rb.stdout).toBe(ra.stdout);
    const model = async (db: string) => {
      const m = JSON.parse((await ok(beebot(['watch', 'model', '--json'], { db }))).stdout) as { groups: Record<string, unknown>[] };
      return m.groups.map(({ since: _s, ...g }) => g);
    };
    const modelLite = await model(lite);
    expect(await model(pg)).toEqual(modelLite);
    const wa2 = stored(lite);
    const wb2 = stored(pg);
    expect(wa2.items.map((i) => (i as { url: string }).url).sort()).toEqual(['http://ext.test/hub-new', url('/p-new')]);
    for (const t of ['hubs', 'items', 'checks', 'pages', 'edges', 'external', 'log'] as const) expect(wb2[t], t).toEqual(wa2[t]);

  });

  it('watch import stores the same history on both stores, and both refuse a file that goes back in time', async () => {
    await start();
    const h0 = Date.now() - 3 * 3_600_000;
    const csv = join(tmp.dir, 'history.csv');
    writeFileSync(csv, ['hub,checked_at,item,kind,published', `${url('/p4')},${new Date(h0).toISOString()},,,`,
      `${url('/p4')},${new Date(h0 + 3_600_000).toISOString()},http://ext.test/old-1,external,`,
      `${url('/p4')},${new Date(h0 + 7_200_000).toISOString()},${url('/p4-a')},page,${new Date(h0 + 5_000_000).toISOString()}`].join('\r\n'));
    const [ia, ib] = await both(['watch', 'import', csv]);
    expect(ia.stdout).toBe('imported 3 checks and 2 items on 1 hubs\n');
    expect(ib.stdout).toBe(ia.stdout);
    const wa3 = stored(lite);
    const wb3 = stored(pg);
    const imported = wa3.items.filter((i) => (i as { hub: string }).hub === url('/p4')) as { kind: string; source: string }[];
    expect(imported.map((i) => [i.kind, i.source])).toEqual([['external', 'interval'], ['page', 'published']]);
    for (const t of ['hubs', 'items', 'checks'] as const) expect(wb3[t], t).toEqual(wa3[t]);
    writeFileSync(csv, `hub,checked_at\r\n${url('/p4')},${new Date(h0).toISOString()}\r\n`);
    for (const db of [lite, pg]) expect((await beebot(['watch', 'import', csv], { db })).stderr).toMatch(/line 2: the hub's checks already recorded run to/);
  });

  it('the full pass of crawl --refresh (src/refresh/full-pass.ts) stores the same on both stores, a budget-stopped pass resuming', async () => {
    await start();
    pages.set('/p3', { body: '<p>page 3 text</p><a href="/">home</a> <a href="http://ext.test/new">n</a>', etag: '"v2-3"', modified: T1 });
    pages.set('/p7', { body: '', etag: '"x"', modified: T0, status: 404 });
    const pass = async (target: string, budget: number | null) => {
      const db = openDb(target);
      try {
        const settings = { ...readSettings(db), delay: 0 } as Settings;
        const resolve = parseResolve([`site.test:${server.port}:127.0.0.1`]);
        const { gen, resumed, reason } = await refresh(db, { settings, budget, resolve, proxy: null, signal: new AbortController().signal });
        return { gen, resumed, reason };
      } finally {
        db.close();
      }
    };
    for (const target of [lite, pg]) {
      expect(await pass(target, 5)).toEqual({ gen: 1, resumed: false, reason: 'budget' });
      expect(await pass(target, null)).toEqual({ gen: 1, resumed: true, reason: 'done' });
      expect(await pass(target, null)).toEqual({ gen: 2, resumed: false, reason: 'done' });
    }
    const a = stored(lite);
    expect(a.log).toHaveLength(2 * (PAGES + 1));
    expect(a.log.filter((r) => (r as { action: string }).action === 'gone')).toHaveLength(1);
    const b = stored(pg);
    for (const t of ['runs', 'log', 'pages', 'edges', 'external'] as const) expect(b[t], t).toEqual(a[t]);
  });

  it('a refresh iteration killed with kill -9 resumes its own plan on PostgreSQL: every planned page checked once, ΔS given once', async () => {
    await start(150);
    const args = ['refresh', '--budget-time', '1h', '--delta', '3', '--cost', '0,100', '--json', ...via()];
    const run = beebot(args, { db: pg });
    while (server.seen.length < 4) await new Promise((r) => setTimeout(r, 10));
    run.child.kill('SIGKILL');
    expect((await run).signal).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 400)); // a request in flight at the kill is answered (and logged) late
    const asked = server.seen.length;
    const count = (sql: string) => Number(rows<{ n: number }>(pg, sql)[0]!.n);
    // on PostgreSQL each check commits on its own: what was answered before the kill is there, at most one lost
    const before = count('SELECT count(*) AS n FROM refreshes');
    expect(before).toBeLessThan(PAGES + 1);
    expect(before).toBeGreaterThanOrEqual(3);
    const again = await ok(beebot(args, { db: pg }));
    expect(JSON.parse(again.stdout)).toMatchObject({ iteration: 1, resumed: true, finished: true, checked: PAGES + 1 - before, unchanged: PAGES + 1 - before });
    const log = rows(pg, 'SELECT page_id FROM refreshes WHERE gen = 1 ORDER BY page_id');
    const plan = rows(pg, 'SELECT page_id FROM refresh_plan WHERE gen = 1 ORDER BY page_id');
    expect(log).toEqual(plan);
    expect(plan).toHaveLength(PAGES + 1);
    expect(server.seen.length).toBe(asked + PAGES + 1 - before);
    const s = rows<{ scent: number; size: number }>(pg, "SELECT scent, text_size AS size FROM pages WHERE status = 'done'");
    expect(s).toHaveLength(PAGES + 1);
    for (const x of s) expect(x.scent).toBeCloseTo(Math.log2(1 + x.size) / 2 + 3, 9);
    expect(count('SELECT count(*) AS n FROM refresh_runs WHERE finished_at IS NULL')).toBe(0);
    // a second refresh while one runs is refused (the session lock), in one line with exit 1
    const running = beebot(args, { db: pg });
    while (server.seen.length < asked + PAGES + 2) await new Promise((r) => setTimeout(r, 10));
    const refused = await beebot(args, { db: pg });
    running.child.kill('SIGKILL');
    await running;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/a refresh or watch is running on postgres:/);
  });
});
