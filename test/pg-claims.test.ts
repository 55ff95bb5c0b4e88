// The coordination layer for many workers on one PostgreSQL crawl (src/store/pg/claims.ts), on a real
// server started by the test: page leases under concurrent claimers (clients in this process and
// separate worker processes), leases of a killed worker expiring back to the frontier, per-host
// slots and the global budget under concurrency.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimBudget, claimHost, claimPage, expireLeases, pgCoordination, release, renew, returnBudget, type ClaimedPage } from '../src/store/pg/claims.js';
import { pgSchema } from '../src/store/pg/schema.js';
import { startPostgres, type PgCluster } from './helpers/postgres.js';

const CLAIMS_JS = fileURLToPath(new URL('../dist/src/store/pg/claims.js', import.meta.url));

let cluster: PgCluster | undefined;
let pool: pg.Pool;

beforeAll(async () => {
  cluster = await startPostgres();
  pool = new pg.Pool({ connectionString: cluster.url, max: 30 });
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const statement of [...pgSchema, ...pgCoordination]) await client.query(statement);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
});

afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
});

interface Site { id: number; queued: number[] }

/**
 * A site with n pages in plain SQL. Levels are scattered over ids (level = i*7 mod 4), so the
 * frontier order (level, id) differs from id order; every 10th page is already done and must
 * never be claimed. queued: the claimable page ids in frontier order.
 */
async function fillSite(n: number): Promise<Site> {
  const site = await pool.query<{ id: string }>(`INSERT INTO sites (url, added_at) VALUES ('https://site.example/', '2026-11-23T12:00:00Z') RETURNING id`);
  const id = Number(site.rows[0]!.id);
  await pool.query(
    `INSERT INTO pages (site_id, key, dir, fp, url, level, status)
     SELECT $1, 'http://site.example/p' || i, 0, i, 'https://site.example/p' || i, (i * 7) % 4, CASE WHEN i % 10 = 0 THEN 'done' ELSE 'queued' END
       FROM generate_series(1, $2::int) AS i ORDER BY i`,
    [id, n],
  );
  const { rows } = await pool.query<{ id: string }>(`SELECT id FROM pages WHERE site_id = $1 AND status = 'queued' ORDER BY level, id`, [id]);
  return { id, queued: rows.map((r) => Number(r.id)) };
}

/** Position of each page in the frontier order, to check that a claimer's pages come in that order. */
function frontierRank(site: Site): Map<number, number> {
  return new Map(site.queued.map((id, i) => [id, i]));
}

function expectIncreasing(ids: number[], rank: Map<number, number>): void {
  const ranks = ids.map((id) => rank.get(id)!);
  expect(ranks.every((r) => r !== undefined)).toBe(true);
  for (let i = 1; i < ranks.length; i++) expect(ranks[i]!).toBeGreaterThan(ranks[i - 1]!);
}

/** n separate connections to the cluster: n concurrent workers. */
function connectClients(n: number): Promise<pg.Client[]> {
  return Promise.all(Array.from({ length: n }, async () => {
    const c = new pg.Client({ connectionString: cluster!.url });
    await c.connect();
    return c;
  }));
}

describe('page leases', () => {
  it('8 concurrent claimers take every queued page exactly once, each in frontier order', async () => {
    const site = await fillSite(400);
    const clients = await connectClients(8);
    try {
      const started = performance.now();
      const claimed = await Promise.all(clients.map(async (c, w) => {
        const mine: number[] = [];
        for (let page; (page = await claimPage(c, site.id, `w${w}`, 60_000)); ) {
          expect(page.siteId).toBe(site.id);
          mine.push(page.id);
        }
        return mine;
      }));
      const seconds = (performance.now() - started) / 1000;
      const all = claimed.flat();
      console.log(`pg-claims: ${all.length} pages claimed by 8 clients in ${seconds.toFixed(3)} s = ${Math.round(all.length / seconds)} claims/s (per claimer: ${claimed.map((c) => c.length).join(' ')})`);

      expect(site.queued.length).toBe(360);
      expect(all.length).toBe(site.queued.length); // none twice
      expect(new Set(all)).toEqual(new Set(site.queued)); // every one
      expect(claimed.filter((c) => c.length > 0).length).toBeGreaterThan(1); // they did run side by side
      const rank = frontierRank(site);
      for (const mine of claimed) expectIncreasing(mine, rank);
      // the database agrees: one lease per page, held by the claimer that got it
      const leases = await pool.query<{ page_id: string; worker: string }>(`SELECT page_id, worker FROM page_leases WHERE page_id = ANY($1::bigint[])`, [site.queued]);
      const holder = new Map(leases.rows.map((r) => [Number(r.page_id), r.worker]));
      expect(holder.size).toBe(site.queued.length);
      claimed.forEach((mine, w) => mine.forEach((id) => expect(holder.get(id)).toBe(`w${w}`)));
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('8 concurrent workers claim, commit and release 1800 queued pages: each once, none left', async () => {
    const site = await fillSite(2_000);
    const clients = await connectClients(8);
    try {
      const started = performance.now();
      const claimed = await Promise.all(clients.map(async (c, w) => {
        const mine: number[] = [];
        for (let page; (page = await claimPage(c, site.id, `c${w}`, 60_000)); ) {
          await c.query(`UPDATE pages SET status = 'done' WHERE id = $1`, [page.id]);
          expect(await release(c, page.id, `c${w}`)).toBe(true);
          mine.push(page.id);
        }
        return mine;
      }));
      const seconds = (performance.now() - started) / 1000;
      const all = claimed.flat();
      console.log(`pg-claims: ${all.length} pages claimed, marked done and released by 8 clients in ${seconds.toFixed(3)} s = ${Math.round(all.length / seconds)} pages/s`);
      expect(all.length).toBe(site.queued.length);
      expect(new Set(all)).toEqual(new Set(site.queued));
      const rank = frontierRank(site);
      for (const mine of claimed) expectIncreasing(mine, rank);
      const left = await pool.query<{ queued: number }>(`SELECT count(*)::int AS queued FROM pages WHERE site_id = $1 AND status = 'queued'`, [site.id]);
      expect(left.rows[0]!.queued).toBe(0);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('3 worker processes (claim, mark done, release) share a site: every page once, none twice', async () => {
    expect(existsSync(CLAIMS_JS), `${CLAIMS_JS} missing: run npm run build`).toBe(true);
    const site = await fillSite(300);
    // a real worker's cycle on the compiled module: claim, commit the page, release its lease
    const script = `
      import pg from 'pg';
      import { claimPage, release } from ${JSON.stringify(CLAIMS_JS)};
      const client = new pg.Client({ connectionString: process.env.PG_URL });
      await client.connect();
      const worker = 'proc-' + process.pid;
      const ids = [];
      for (let page; (page = await claimPage(client, Number(process.env.SITE), worker, 60000)); ) {
        await client.query("UPDATE pages SET status = 'done' WHERE id = $1", [page.id]);
        if (!(await release(client, page.id, worker))) throw new Error('lease lost: ' + page.id);
        ids.push(page.id);
      }
      await client.end();
      process.stdout.write(JSON.stringify(ids));`;
    const run = () => new Promise<number[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { ...process.env, PG_URL: cluster!.url, SITE: String(site.id) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`worker exited ${code}: ${err}`))));
    });
    const claimed = await Promise.all([run(), run(), run()]);
    const all = claimed.flat();
    expect(all.length).toBe(site.queued.length);
    expect(new Set(all)).toEqual(new Set(site.queued));
    expect(claimed.filter((c) => c.length > 0).length).toBeGreaterThan(1);
    const rank = frontierRank(site);
    for (const mine of claimed) expectIncreasing(mine, rank);
    const left = await pool.query<{ queued: number; leases: number }>(
      `SELECT (SELECT count(*) FROM pages WHERE site_id = $1 AND status = 'queued')::int AS queued,
              (SELECT count(*) FROM page_leases l JOIN pages p ON p.id = l.page_id WHERE p.site_id = $1)::int AS leases`,
      [site.id],
    );
    expect(left.rows[0]).toEqual({ queued: 0, leases: 0 });
  });

  it('a killed worker\'s lease returns its page to the frontier when it expires, not before', async () => {
    const site = await fillSite(4); // four queued pages, levels 3, 2, 1, 0: frontier order p4, p3, p2, p1
    const [first, second] = site.queued;
    const killed = await claimPage(pool, site.id, 'killed', 5_000, { now: 1_000 });
    expect(killed).toMatchObject({ id: first, expiresAt: 6_000 });
    // the killed worker never releases. Before expiry another worker gets the next page, not that one
    const early = await claimPage(pool, site.id, 'other', 5_000, { now: 5_999 });
    expect(early?.id).toBe(second);
    // at expiry the page is free again, and first in the frontier order
    const late = await claimPage(pool, site.id, 'other', 5_000, { now: 6_000 });
    expect(late).toMatchObject({ id: first, expiresAt: 11_000 });
    // the old holder has lost it: it can neither renew nor release the new holder's lease
    expect(await renew(pool, first!, 'killed', 5_000, 6_001)).toBe(false);
    expect(await release(pool, first!, 'killed')).toBe(false);
    expect(await renew(pool, first!, 'other', 5_000, 7_000)).toBe(true);
    const lease = await pool.query<{ worker: string; expires_at: string }>(`SELECT worker, expires_at FROM page_leases WHERE page_id = $1`, [first]);
    expect(lease.rows).toEqual([{ worker: 'other', expires_at: '12000' }]);
    // a renewed lease holds past its first expiry (11_000); second's (10_999) has run out
    const third = [];
    for (let page; (page = await claimPage(pool, site.id, 'third', 5_000, { now: 11_500 })); ) third.push(page.id);
    expect(third).toEqual([second, site.queued[2], site.queued[3]]);
    // housekeeping drops only expired leases: first's (12_000), not the three of 'third' (16_500)
    expect(await expireLeases(pool, 16_000)).toBe(1);
    expect(await release(pool, first!, 'other')).toBe(false); // already gone
    expect(await claimPage(pool, site.id, 'fourth', 5_000, { now: 16_000 })).toMatchObject({ id: first });
  });

  it('a worker process killed with kill -9 loses nothing: its page is claimable once the lease (database clock) runs out', async () => {
    expect(existsSync(CLAIMS_JS), `${CLAIMS_JS} missing: run npm run build`).toBe(true);
    const site = await fillSite(2); // two queued pages
    const script = `
      import pg from 'pg';
      import { claimPage } from ${JSON.stringify(CLAIMS_JS)};
      const client = new pg.Client({ connectionString: process.env.PG_URL });
      await client.connect();
      const page = await claimPage(client, Number(process.env.SITE), 'doomed', 1500);
      process.stdout.write(JSON.stringify(page) + '\\n');
      setInterval(() => {}, 1000); // "fetching" forever`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, PG_URL: cluster!.url, SITE: String(site.id) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const held = await new Promise<ClaimedPage>((resolve) => child.stdout.setEncoding('utf8').once('data', (d: string) => resolve(JSON.parse(d) as ClaimedPage)));
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(held.id).toBe(site.queued[0]);
    const killedAt = Date.now();
    // before expiry: the other page, then nothing
    const other = await claimPage(pool, site.id, 'survivor', 60_000);
    expect(other?.id).toBe(site.queued[1]);
    expect(await claimPage(pool, site.id, 'survivor', 60_000)).toBeNull();
    // after expiry: the killed worker's page
    let back: ClaimedPage | null = null;
    while (!back && Date.now() - killedAt < 10_000) {
      await new Promise((r) => setTimeout(r, 100));
      back = await claimPage(pool, site.id, 'survivor', 60_000);
    }
    expect(back?.id).toBe(held.id);
    expect(back!.expiresAt).toBeGreaterThan(held.expiresAt);
    const { rows } = await pool.query<{ now: string }>(`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now`);
    expect(Number(rows[0]!.now)).toBeGreaterThanOrEqual(held.expiresAt);
  });

  it('a page whose lease another worker is writing right now is skipped, not waited for', async () => {
    const site = await fillSite(3);
    const [first, second] = site.queued;
    // another worker's lease on the first page, inserted but not yet committed: invisible to the
    // claim's snapshot, but its foreign key holds a share lock on the page row until it commits,
    // so SKIP LOCKED passes the page over instead of queueing behind that worker
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO page_leases (page_id, worker, expires_at) VALUES ($1, 'other', 9e15)`, [first]);
      expect((await claimPage(pool, site.id, 'late', 60_000))?.id).toBe(second);
      await other.query('COMMIT');
    } finally {
      other.release();
    }
    const { rows } = await pool.query<{ page_id: string; worker: string }>(`SELECT page_id, worker FROM page_leases WHERE page_id = ANY($1::bigint[]) ORDER BY worker`, [[first, second]]);
    expect(rows).toEqual([{ page_id: String(second), worker: 'late' }, { page_id: String(first), worker: 'other' }]);
  });

  it('8 concurrent claimers taking over expired leases get each page once', async () => {
    const site = await fillSite(200);
    // every page was held by a worker that died: all leases expired at 1_000
    await pool.query(`INSERT INTO page_leases (page_id, worker, expires_at) SELECT unnest($1::bigint[]), 'dead', 1000`, [site.queued]);
    const claimed = await Promise.all(Array.from({ length: 8 }, async (_, w) => {
      const mine: number[] = [];
      for (let page; (page = await claimPage(pool, site.id, `t${w}`, 5_000, { now: 2_000 })); ) mine.push(page.id);
      return mine;
    }));
    const all = claimed.flat();
    expect(all.length).toBe(site.queued.length);
    expect(new Set(all)).toEqual(new Set(site.queued));
    const rank = frontierRank(site);
    for (const mine of claimed) expectIncreasing(mine, rank);
    const { rows } = await pool.query<{ dead: number }>(`SELECT count(*)::int AS dead FROM page_leases WHERE worker = 'dead'`);
    expect(rows[0]!.dead).toBe(0);
  });

  it('respects maxLevel as the frontier does', async () => {
    const site = await fillSite(9);
    const levels = await pool.query<{ id: string; level: string }>(`SELECT id, level FROM pages WHERE site_id = $1 AND status = 'queued' ORDER BY level, id`, [site.id]);
    const upTo1 = levels.rows.filter((r) => Number(r.level) <= 1).map((r) => Number(r.id));
    const got: number[] = [];
    for (let page; (page = await claimPage(pool, site.id, 'w', 60_000, { maxLevel: 1 })); ) got.push(page.id);
    expect(upTo1.length).toBeGreaterThan(0);
    expect(got).toEqual(upTo1);
  });
});

describe('host slots', () => {
  it('20 concurrent claims with a 1000 ms delay get 20 distinct slots exactly 1000 ms apart', async () => {
    const now = 1_000_000;
    const slots = await Promise.all(Array.from({ length: 20 }, () => claimHost(pool, 'busy.example', 1_000, now)));
    const at = slots.map((s) => s.at).sort((a, b) => a - b);
    expect(at).toEqual(Array.from({ length: 20 }, (_, i) => now + i * 1_000));
    for (const s of slots) expect(s.waitMs).toBe(s.at - now);
    const row = await pool.query<{ next_at: string }>(`SELECT next_at FROM host_slots WHERE host = 'busy.example'`);
    expect(row.rows[0]!.next_at).toBe(String(now + 20_000));
    // an idle host's next slot is now; other hosts are independent
    expect(await claimHost(pool, 'busy.example', 1_000, now + 60_000)).toEqual({ at: now + 60_000, waitMs: 0 });
    expect(await claimHost(pool, 'quiet.example', 1_000, now)).toEqual({ at: now, waitMs: 0 });
    // without a virtual time the database clock is used: a first claim is due at once
    const real = await claimHost(pool, 'clock.example', 500);
    expect(real.waitMs).toBe(0);
    expect(Math.abs(real.at - Date.now())).toBeLessThan(5_000);
    expect((await claimHost(pool, 'clock.example', 500)).at).toBe(real.at + 500);
  });
});

describe('global budget', () => {
  it('concurrent claims never grant more than the budget in total', async () => {
    await pool.query(`INSERT INTO settings (key, value) VALUES ('budget', '100') ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
    await pool.query(`UPDATE budget_spent SET spent = 0`);
    const grants = (await Promise.all(Array.from({ length: 25 }, async () => {
      const mine: number[] = [];
      for (let g; (g = await claimBudget(pool, 7)) > 0; ) mine.push(g);
      return mine;
    }))).flat();
    expect(grants.reduce((a, b) => a + b, 0)).toBe(100);
    expect(grants.every((g) => g >= 1 && g <= 7)).toBe(true);
    expect(grants.filter((g) => g < 7).length).toBeLessThanOrEqual(1); // only the last claim is cut short
    expect(await claimBudget(pool, 1)).toBe(0);
    // pages a worker did not pull go back, and only those
    await returnBudget(pool, 3);
    expect(await claimBudget(pool, 5)).toBe(3);
    // no budget ('none'): every claim is granted in full
    await pool.query(`UPDATE settings SET value = 'none' WHERE key = 'budget'`);
    expect(await claimBudget(pool, 50)).toBe(50);
  });

  it('starts counting at the pulls the database already holds', async () => {
    // a database that has crawled already (3 fetches) gets its coordination tables later
    await pool.query('CREATE DATABASE crawled');
    const c = new pg.Client({ connectionString: cluster!.url.replace(/\/postgres$/, '/crawled') });
    await c.connect();
    try {
      for (const statement of pgSchema) await c.query(statement);
      await c.query(`INSERT INTO settings (key, value) VALUES ('budget', '5')`);
      await c.query(`INSERT INTO sites (url, added_at) VALUES ('https://a.example/', 'x')`);
      await c.query(`INSERT INTO pages (site_id, key, dir, fp, url, level) VALUES (1, 'http://a.example/', 0, 0, 'https://a.example/', 0)`);
      await c.query(`INSERT INTO fetches (site_id, page_id, reward, ms, at) SELECT 1, 1, 0, 10, 'x' FROM generate_series(1, 3)`);
      for (const statement of pgCoordination) await c.query(statement);
      expect((await c.query(`SELECT spent FROM budget_spent`)).rows).toEqual([{ spent: '3' }]);
      expect(await claimBudget(c, 10)).toBe(2);
    } finally {
      await c.end();
    }
  });
});
