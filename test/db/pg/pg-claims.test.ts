// How several crawl workers share one crawl on PostgreSQL: SharedCrawl
// (src/store/shared-crawl.ts) over the coordination tables (src/db/pg/coordination-tables.ts), on a real
// server started by the test. Page leases, the host mutex and the global budget, between two
// workers of this process and between separate worker processes running the compiled modules.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../../src/db/db.js';
import { SharedCrawl } from '../../../src/store/shared-crawl.js';
import { createDatabase, startPostgres, type PgCluster } from '../../helpers/postgres.js';

// what the worker processes import: the build (npm run build, as `npm test` does first)
const built = (path: string) => fileURLToPath(new URL(`../../../dist/src/${path}`, import.meta.url));
const DB_JS = built('db/db.js');
const SHARED_JS = built('store/shared-crawl.js');
const FRONTIER_JS = built('store/frontier.js');

let cluster: PgCluster | undefined;
const open: Db[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
});

afterAll(async () => {
  for (const db of open) db.close();
  await cluster?.stop();
});

/** A fresh crawl database (schema and coordination tables, as `beebot crawl` opens it) and n connections to it. */
async function crawlDb(n: number): Promise<{ url: string; dbs: Db[] }> {
  const url = await createDatabase(cluster!);
  const dbs = Array.from({ length: n }, () => openDb(url));
  open.push(...dbs);
  return { url, dbs };
}

/** Workers A and B of one fresh crawl, each on its own connection; A's leases last leaseA ms. */
async function twoWorkers(leaseA = 60_000): Promise<{ dbA: Db; dbB: Db; a: SharedCrawl; b: SharedCrawl }> {
  const { dbs: [dbA, dbB] } = await crawlDb(2);
  return { dbA: dbA!, dbB: dbB!, a: new SharedCrawl(dbA!, 'A', leaseA), b: new SharedCrawl(dbB!, 'B', 60_000) };
}

interface Site { id: number; queued: number[] }

/**
 * A site with n pages. Levels are scattered over ids (level = i*7 mod 4), so the frontier order
 * (level, id) differs from id order; every 10th page is already done and must never be leased.
 * queued: the page ids to crawl, in frontier order.
 */
function fillSite(db: Db, n: number): Site {
  const id = db.prepare(`INSERT INTO sites (url, added_at) VALUES ('https://site.example/', '2026-11-23T12:00:00Z') RETURNING id`).pluck().get() as number;
  db.prepare(
    `INSERT INTO pages (site_id, key, dir, fp, url, level, status)
     SELECT ?, 'http://site.example/p' || i, 0, i, 'https://site.example/p' || i, (i * 7) % 4, CASE WHEN i % 10 = 0 THEN 'done' ELSE 'queued' END
       FROM generate_series(1, ?::int) AS i ORDER BY i`,
  ).run(id, n);
  const queued = db.prepare(`SELECT id FROM pages WHERE site_id = ? AND status = 'queued' ORDER BY level, id`).pluck().all(id) as number[];
  return { id, queued };
}

const leases = (db: Db) => db.prepare(`SELECT page_id, worker FROM page_leases ORDER BY page_id`).raw().all() as [number, string][];
const expiresAt = (db: Db, page: number) => db.prepare(`SELECT expires_at FROM page_leases WHERE page_id = ?`).pluck().get(page) as number;
const dbNow = (db: Db) => db.prepare(`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint`).pluck().get() as number;
const spent = (db: Db) => db.prepare(`SELECT spent FROM budget_spent`).pluck().get() as number;

/**
 * n worker processes running `body` (an ES module's statements, top-level await allowed) with
 * `db` (openDb of the crawl), `shared` (a SharedCrawl of its own worker name), `SharedCrawl`,
 * `Frontier` and `sleep` in scope; each writes its result as JSON on stdout. They start their work
 * together, once every one has connected (a line on stdin), so they really run side by side.
 */
async function workers<T>(url: string, n: number, body: string, env: Record<string, string> = {}): Promise<T[]> {
  for (const js of [DB_JS, SHARED_JS, FRONTIER_JS]) expect(existsSync(js), `${js} missing: run npm run build`).toBe(true);
  const script = `
    import { openDb } from ${JSON.stringify(DB_JS)};
    import { SharedCrawl } from ${JSON.stringify(SHARED_JS)};
    import { Frontier } from ${JSON.stringify(FRONTIER_JS)};
    import { setTimeout as sleep } from 'node:timers/promises';
    const db = openDb(process.env.PG_URL);
    const shared = new SharedCrawl(db, 'proc-' + process.pid, 60000);
    process.stdout.write('ready\\n');
    await new Promise((go) => process.stdin.once('data', go));
    process.stdin.destroy();
    ${body}
    db.close();`;
  const children = Array.from({ length: n }, () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      env: { ...process.env, ...env, PG_URL: url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let onReady: () => void;
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.startsWith('ready\n')) onReady();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const result = new Promise<T>((resolve, reject) => child.on('close', (code) => {
      onReady(); // a worker that died before it was ready fails below, not by hanging the others
      if (code === 0 && out.startsWith('ready\n')) resolve(JSON.parse(out.slice('ready\n'.length)) as T);
      else reject(new Error(`worker exited ${code}: ${err}`));
    }));
    return { child, ready, result };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const { child } of children) child.stdin.end('go\n');
  return Promise.all(children.map((c) => c.result));
}

describe('page leases', () => {
  it('a page leased by one worker is not leased by another; released and done, by nobody', async () => {
    const { dbA, dbB, a, b } = await twoWorkers();
    const [p, q] = fillSite(dbA, 5).queued as [number, number];

    expect(a.soonestExpiry()).toBeNull();
    expect(a.lease(p)).toBe(true);
    expect(b.lease(p)).toBe(false);
    expect(leases(dbB)).toEqual([[p, 'A']]);
    expect(b.lease(q)).toBe(true);
    // each counts the other's live lease, not its own
    expect(a.othersBusy()).toBe(1);
    expect(b.othersBusy()).toBe(1);
    const left = a.soonestExpiry()!;
    expect(left).toBeGreaterThan(59_000);
    expect(left).toBeLessThanOrEqual(60_000);

    // A commits p (no longer queued) and releases it: leased by nobody again
    dbA.prepare(`UPDATE pages SET status = 'done' WHERE id = ?`).run(p);
    a.release(p);
    expect(leases(dbA)).toEqual([[q, 'B']]);
    expect(b.othersBusy()).toBe(0);
    expect(a.othersBusy()).toBe(1);
    expect(b.lease(p)).toBe(false);
    expect(a.lease(p)).toBe(false);
    expect(dbA.prepare(`SELECT id FROM pages WHERE status = 'done'`).pluck().all()).toEqual([p]);
    expect(a.lease(999_999)).toBe(false); // nor is a page not in the database

    // a lease released while its page is still queued (the worker gave up on it) is free at once
    b.release(q);
    expect(leases(dbA)).toEqual([]);
    expect(a.soonestExpiry()).toBeNull();
    expect(a.lease(q)).toBe(true);
    // releasing is the holder's only: B's release does not free A's lease
    b.release(q);
    expect(leases(dbA)).toEqual([[q, 'A']]);
  });

  it('an expired lease is taken over by another worker, and the old holder can no longer renew it', async () => {
    const LEASE = 200; // short, but long enough for the checks made before it runs out on a loaded machine
    const { dbA, a, b } = await twoWorkers(LEASE);
    const [p, q] = fillSite(dbA, 3).queued as [number, number];

    expect(a.lease(p)).toBe(true);
    const first = expiresAt(dbA, p);
    expect(first - dbNow(dbA)).toBeGreaterThan(0);
    expect(first - dbNow(dbA)).toBeLessThanOrEqual(LEASE);
    expect(b.lease(p)).toBe(false); // not yet
    expect(b.soonestExpiry()).toBeGreaterThan(0);
    expect(b.soonestExpiry()).toBeLessThanOrEqual(LEASE);

    await sleep(LEASE + 30); // A stalls past its lease
    expect(dbNow(dbA)).toBeGreaterThanOrEqual(first);
    expect(b.othersBusy()).toBe(0); // an expired lease is nobody's
    expect(b.soonestExpiry()).toBeNull();
    expect(b.lease(p)).toBe(true);
    expect(leases(dbA)).toEqual([[p, 'B']]);
    expect(a.renew(p)).toBe(false);
    a.release(p); // a late release by A leaves B's lease alone
    expect(leases(dbA)).toEqual([[p, 'B']]);
    expect(b.renew(p)).toBe(true);
    expect(a.othersBusy()).toBe(1);

    // renew extends the lease from now: a renewed lease outlives its first expiry
    expect(a.lease(q)).toBe(true);
    const before = expiresAt(dbA, q);
    await sleep(50);
    expect(a.renew(q)).toBe(true);
    const after = expiresAt(dbA, q);
    expect(after).toBeGreaterThanOrEqual(before + 49);
    expect(after - dbNow(dbA)).toBeLessThanOrEqual(LEASE);
    // a lease that ran out but was not taken over can still be renewed by its holder
    await sleep(LEASE + 30);
    expect(a.renew(q)).toBe(true);
    expect(b.lease(q)).toBe(false);
  });

  it('4 worker processes (frontier pick, lease, mark done, release) share a site: every page leased and done exactly once', async () => {
    const { url, dbs: [db] } = await crawlDb(1);
    const site = fillSite(db!, 400);
    // a worker's cycle as the crawl's: the frontier's next page free of a live lease, lease it, commit, release
    const claimed = await workers<{ ids: number[]; lost: number }>(url, 4, `
      const frontier = new Frontier(db, false, true);
      const done = db.prepare("UPDATE pages SET status = 'done' WHERE id = ? AND status = 'queued'");
      const ids = [];
      let lost = 0;
      for (let page; (page = frontier.nextPage(Number(process.env.SITE), 1e9)); ) {
        if (!shared.lease(page.id)) { lost++; continue; } // another worker took it first
        if (done.run(page.id).changes !== 1) throw new Error('page done twice: ' + page.id);
        shared.release(page.id);
        ids.push(page.id);
      }
      process.stdout.write(JSON.stringify({ ids, lost }));`, { SITE: String(site.id) });

    const all = claimed.flatMap((c) => c.ids);
    console.log(`pg-claims: ${all.length} pages by 4 processes (per process: ${claimed.map((c) => c.ids.length).join(' ')}; leases lost to another: ${claimed.map((c) => c.lost).join(' ')})`);
    expect(site.queued.length).toBe(360);
    expect(all.length).toBe(site.queued.length); // none twice
    expect(new Set(all)).toEqual(new Set(site.queued)); // every one
    expect(claimed.filter((c) => c.ids.length > 0).length).toBeGreaterThan(1); // they did run side by side
    // each worker's pages come in frontier order (no page came back)
    const rank = new Map(site.queued.map((id, i) => [id, i]));
    for (const { ids } of claimed) for (let i = 1; i < ids.length; i++) expect(rank.get(ids[i]!)!).toBeGreaterThan(rank.get(ids[i - 1]!)!);
    expect(db!.prepare(`SELECT count(*) FROM pages WHERE status = 'queued'`).pluck().get()).toBe(0);
    expect(leases(db!)).toEqual([]);
  });
});

describe('host mutex', () => {
  it('one holder at a time; after release the next waits the delay', async () => {
    const { a, b } = await twoWorkers();

    expect(a.acquireHost('h.example', 5_000)).toBe(0);
    const held = b.acquireHost('h.example', 5_000);
    expect(held).toBeGreaterThan(4_000); // until A's hold runs out, at the latest
    expect(held).toBeLessThanOrEqual(5_000);
    expect(a.acquireHost('h.example', 5_000)).toBeGreaterThan(4_000); // not reentrant either
    expect(b.acquireHost('other.example', 5_000)).toBe(0); // hosts are independent

    a.releaseHost('h.example', 100);
    const released = performance.now();
    const wait = b.acquireHost('h.example', 5_000);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(100);
    let w = wait;
    while (w > 0) {
      await sleep(Math.min(w, 10));
      w = b.acquireHost('h.example', 5_000);
    }
    expect(performance.now() - released).toBeGreaterThanOrEqual(98);
    expect(a.acquireHost('h.example', 5_000)).toBeGreaterThan(4_000); // B has it now

    // a delay of 0 frees the host at once
    b.releaseHost('h.example', 0);
    expect(a.acquireHost('h.example', 5_000)).toBe(0);
  });

  it('a holder that dies keeps the host only until its hold runs out', async () => {
    const { a, b } = await twoWorkers();
    expect(a.acquireHost('h.example', 200)).toBe(0);
    const wait = b.acquireHost('h.example', 5_000);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(200);
    await sleep(wait + 5);
    expect(b.acquireHost('h.example', 5_000)).toBe(0);
  });

  it('4 worker processes on one host never overlap, and each request starts at least the delay after the one before ended', async () => {
    const { url } = await crawlDb(1);
    const DELAY = 30;
    const HOLD = 10;
    const spans = (await workers<[number, number][]>(url, 4, `
      const spans = [];
      for (let i = 0; i < 8; i++) {
        for (let w; (w = shared.acquireHost('one.example', 5000)) > 0; ) await sleep(Math.min(w, 5));
        const start = Date.now();
        await sleep(${HOLD}); // the request
        const end = Date.now();
        shared.releaseHost('one.example', ${DELAY});
        spans.push([start, end]);
      }
      process.stdout.write(JSON.stringify(spans));`)).flat().sort((x, y) => x[0] - y[0]);

    expect(spans.length).toBe(32);
    const gaps = spans.slice(1).map((s, i) => s[0] - spans[i]![1]);
    console.log(`pg-claims: 32 requests on one host by 4 processes, gaps ${Math.min(...gaps)}–${Math.max(...gaps)} ms (delay ${DELAY})`);
    // the clocks: Date.now() in the workers, the database's rounded to the ms
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(DELAY - 2);
  });
});

describe('global budget', () => {
  it('6 worker processes taking pages of a budget of 100 at once get exactly 100 in total, round after round', async () => {
    const { url, dbs: [db] } = await crawlDb(1);
    db!.prepare(`INSERT INTO settings (key, value) VALUES ('budget', '100')`).run();
    db!.exec(`CREATE TABLE budget_rounds (round INT, worker TEXT, n INT); CREATE TABLE budget_resets (round INT PRIMARY KEY, spent BIGINT)`);
    // A grant too many can only happen at the end of the budget, where they race for the last
    // pages: so many rounds, the workers meeting between them. Each takes until refused and
    // records its grants; once all have, the first to get there records the spent count and
    // starts the next round from 0 (the others' insert waits for its commit, then does nothing).
    const ROUNDS = 20;
    await workers<null>(url, 6, `
      const record = db.prepare('INSERT INTO budget_rounds (round, worker, n) VALUES (?, ?, ?)');
      const arrived = db.prepare('SELECT count(*) FROM budget_rounds WHERE round = ?').pluck();
      const reset = db.prepare('INSERT INTO budget_resets (round, spent) SELECT ?, spent FROM budget_spent ON CONFLICT DO NOTHING');
      const zero = db.prepare('UPDATE budget_spent SET spent = 0');
      for (let round = 0; round < ${ROUNDS}; round++) {
        let n = 0;
        while (shared.takeBudget()) n++;
        record.run(round, shared.worker, n);
        while (arrived.get(round) < 6) await sleep(2);
        db.transaction(() => { if (reset.run(round).changes === 1) zero.run(); })();
      }
      process.stdout.write('null');`);

    const rounds = db!.prepare(
      `SELECT r.round, sum(g.n)::int, r.spent, count(*) FILTER (WHERE g.n > 0)::int FROM budget_resets r JOIN budget_rounds g ON g.round = r.round
        GROUP BY r.round, r.spent ORDER BY r.round`,
    ).raw().all() as [number, number, number, number][];
    // each round: 100 granted in all, and 100 counted
    expect(rounds.map(([round, granted, counted]) => [round, granted, counted])).toEqual(Array.from({ length: ROUNDS }, (_, round) => [round, 100, 100]));
    // and they did race for them: in most rounds more than one worker got some
    expect(rounds.filter(([, , , takers]) => takers > 1).length).toBeGreaterThan(ROUNDS / 2);
  });

  it('returnBudget gives one back; recountBudget counts the fetches and the live leases; no budget is no limit', async () => {
    const { dbs: [db] } = await crawlDb(1);
    const site = fillSite(db!, 8);
    const w = new SharedCrawl(db!, 'W', 60_000);
    db!.prepare(`INSERT INTO settings (key, value) VALUES ('budget', '3')`).run();
    expect([w.takeBudget(), w.takeBudget(), w.takeBudget(), w.takeBudget()]).toEqual([true, true, true, false]);
    expect(spent(db!)).toBe(3);
    w.returnBudget();
    expect(spent(db!)).toBe(2);
    expect(w.takeBudget()).toBe(true);
    expect(w.takeBudget()).toBe(false);
    // nothing to give back below zero
    db!.prepare(`UPDATE budget_spent SET spent = 0`).run();
    w.returnBudget();
    expect(spent(db!)).toBe(0);

    // 2 pulls made, 2 live leases (pages being fetched) and 1 expired one (a killed worker's page, queued again)
    const [p1, p2, p3, p4] = site.queued as [number, number, number, number];
    db!.prepare(`INSERT INTO fetches (site_id, page_id, reward, ms, at) VALUES (?, ?, 0, 10, 'x'), (?, ?, 0, 10, 'x')`).run(site.id, p1, site.id, p2);
    expect(w.lease(p3)).toBe(true);
    expect(new SharedCrawl(db!, 'V', 60_000).lease(p4)).toBe(true);
    db!.prepare(`INSERT INTO page_leases (page_id, worker, expires_at) VALUES (?, 'dead', 1000)`).run(site.queued[4]);
    db!.prepare(`UPDATE budget_spent SET spent = 3`).run(); // 3 granted, one of them to the dead worker
    w.recountBudget();
    expect(spent(db!)).toBe(4);
    expect(w.takeBudget()).toBe(false); // budget 3, 4 counted
    db!.prepare(`UPDATE settings SET value = '6' WHERE key = 'budget'`).run();
    expect([w.takeBudget(), w.takeBudget(), w.takeBudget()]).toEqual([true, true, false]);

    // 'none', or no budget setting at all: every take is granted, and counted
    db!.prepare(`UPDATE settings SET value = 'none' WHERE key = 'budget'`).run();
    for (let i = 0; i < 10; i++) expect(w.takeBudget()).toBe(true);
    expect(spent(db!)).toBe(16);
    db!.prepare(`DELETE FROM settings WHERE key = 'budget'`).run();
    expect(w.takeBudget()).toBe(true);
    expect(spent(db!)).toBe(17);
  });
});
