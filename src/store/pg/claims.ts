/**
 * Coordination of many crawl workers over one PostgreSQL database (issue 16): page leases, per-host
 * request slots and the global page budget. Each function is one SQL statement (claimPage loops
 * only when it loses a race), so it is atomic on its own and needs no transaction of the caller.
 * Not yet used by `beebot crawl`.
 *
 * Times are epoch milliseconds. Every function takes an optional `now`; without it the database's
 * clock is used, so workers on machines whose clocks disagree still agree on expiries and slots.
 * Tests pass a virtual `now`.
 */
import type pg from 'pg';

/** Anything that runs a query: a Pool (each call takes a connection) or one Client. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.Client, 'query'>;

/**
 * The coordination tables. Kept apart from pgSchema on purpose: pgSchema must stay equal to the
 * SQLite layout table by table (test/pg-store.test.ts), and these tables exist only where several
 * workers share a crawl. Create them after pgSchema (budget_spent starts at the pulls already made).
 */
export const pgCoordination: readonly string[] = [
  // one row per page a worker holds; an expired lease counts as free. Released after the page's commit.
  `CREATE TABLE page_leases (
    page_id    BIGINT PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
    worker     TEXT NOT NULL,
    expires_at BIGINT NOT NULL
  )`,
  // a host's next allowed request time, shared by all workers (epoch ms)
  `CREATE TABLE host_slots (
    host    TEXT PRIMARY KEY,
    next_at BIGINT NOT NULL
  )`,
  // the pages granted against settings.budget so far; last_grant is what the latest claim got
  `CREATE TABLE budget_spent (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    spent      BIGINT NOT NULL,
    last_grant BIGINT NOT NULL DEFAULT 0
  )`,
  `INSERT INTO budget_spent (id, spent) SELECT 1, count(*) FROM fetches`,
  // A page's identity in its site is its fingerprint (fingerprint.ts). With one writer the
  // writer's seen-set keeps it unique; with several, two may find the same new link at once:
  // this index lets the second insert do nothing (commit.ts: ON CONFLICT DO NOTHING).
  `CREATE UNIQUE INDEX pages_identity ON pages (site_id, dir, fp)`,
];

/** The database clock in epoch ms, or the caller's (virtual) time when $n is not null. */
const clock = (param: string) => `coalesce(${param}::bigint, (extract(epoch from clock_timestamp()) * 1000)::bigint)`;

export interface ClaimedPage {
  id: number;
  siteId: number;
  url: string;
  level: number;
  /** when the lease runs out unless renewed (epoch ms) */
  expiresAt: number;
}

export interface ClaimOptions {
  /** only pages up to this level, as the SQLite frontier's maxLevel; default: all */
  maxLevel?: number;
  now?: number;
}

/*
 * The page: the site's queued page of lowest (level, id) without a live lease, as the SQLite
 * frontier orders them. FOR UPDATE SKIP LOCKED lets concurrent claimers pass over the page another
 * one is taking at that instant. The lease insert decides: ON CONFLICT locks the latest lease row
 * (whatever this statement's snapshot saw) and takes it over only if it has expired. So a claimer
 * that read the frontier just before another committed its lease gets no row back from `won` and
 * tries again, instead of holding the page twice. (While a lease insert is uncommitted, its foreign
 * key holds a share lock on the page row, so SKIP LOCKED passes the page over; the window left is
 * between this statement's snapshot and its row lock, and the insert's WHERE closes it.)
 */
const CLAIM = `
  WITH pick AS (
    SELECT p.id, p.site_id, p.url, p.level FROM pages p
     WHERE p.site_id = $1 AND p.status = 'queued' AND ($5::bigint IS NULL OR p.level <= $5)
       AND NOT EXISTS (SELECT 1 FROM page_leases l WHERE l.page_id = p.id AND l.expires_at > ${clock('$4')})
     ORDER BY p.level, p.id
     LIMIT 1
     FOR UPDATE OF p SKIP LOCKED
  ), won AS (
    INSERT INTO page_leases (page_id, worker, expires_at)
    SELECT id, $2, ${clock('$4')} + $3 FROM pick
    ON CONFLICT (page_id) DO UPDATE SET worker = excluded.worker, expires_at = excluded.expires_at
      WHERE page_leases.expires_at <= ${clock('$4')}
    RETURNING page_id, expires_at
  )
  SELECT pick.id, pick.site_id, pick.url, pick.level, won.expires_at FROM pick LEFT JOIN won ON won.page_id = pick.id`;

/**
 * Leases the next page of a site to `worker` for leaseMs, or null when the site has no queued page
 * free of a live lease (pages another claimer is taking at this instant are skipped, not waited
 * for). A worker killed with kill -9 loses nothing: its leases expire and the pages are claimable
 * again. Never returns a page whose lease another worker holds. Null means nothing is free now,
 * not that the site is exhausted: a page another transaction has locked (or leased) may come back.
 */
export async function claimPage(db: Queryable, siteId: number, worker: string, leaseMs: number, opts: ClaimOptions = {}): Promise<ClaimedPage | null> {
  for (;;) {
    const { rows } = await db.query<{ id: string; site_id: string; url: string; level: string; expires_at: string | null }>(CLAIM, [
      siteId, worker, leaseMs, opts.now ?? null, opts.maxLevel ?? null,
    ]);
    const row = rows[0];
    if (!row) return null;
    if (row.expires_at === null) continue; // lost the page to a claimer that committed first: next one
    return { id: Number(row.id), siteId: Number(row.site_id), url: row.url, level: Number(row.level), expiresAt: Number(row.expires_at) };
  }
}

/**
 * Extends a lease this worker still holds (even if it ran out, as long as nobody took the page
 * over since). False: another worker has the page now, or it was released.
 */
export async function renew(db: Queryable, pageId: number, worker: string, leaseMs: number, now?: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE page_leases SET expires_at = ${clock('$4')} + $3 WHERE page_id = $1 AND worker = $2`,
    [pageId, worker, leaseMs, now ?? null],
  );
  return rowCount === 1;
}

/**
 * Gives a page back once its results are committed (its status is no longer 'queued', so nobody
 * claims it again). Only the holder's own lease is removed: a worker whose lease ran out and was
 * taken over does not free the new holder's. False when this worker held no lease on it.
 */
export async function release(db: Queryable, pageId: number, worker: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM page_leases WHERE page_id = $1 AND worker = $2`, [pageId, worker]);
  return rowCount === 1;
}

/** Removes expired leases (housekeeping only: claimPage already treats them as free). How many. */
export async function expireLeases(db: Queryable, now?: number): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM page_leases WHERE expires_at <= ${clock('$1')}`, [now ?? null]);
  return rowCount ?? 0;
}

export interface HostSlot {
  /** when this worker may send its request to the host (epoch ms) */
  at: number;
  /** how long to wait for it from `now` (0 when it is already due) */
  waitMs: number;
}

/**
 * Reserves a host's next request slot for this worker in one statement: the slot is
 * max(now, next_at), and next_at moves to slot + delayMs. The row lock of ON CONFLICT DO UPDATE
 * serialises concurrent claims, so N workers asking at once get N slots delayMs apart.
 */
export async function claimHost(db: Queryable, host: string, delayMs: number, now?: number): Promise<HostSlot> {
  const { rows } = await db.query<{ at: string; wait: string }>(
    `INSERT INTO host_slots AS h (host, next_at) VALUES ($1, ${clock('$3')} + $2)
     ON CONFLICT (host) DO UPDATE SET next_at = greatest(h.next_at, ${clock('$3')}) + $2
     RETURNING h.next_at - $2 AS at, greatest(h.next_at - $2 - ${clock('$3')}, 0) AS wait`,
    [host, delayMs, now ?? null],
  );
  return { at: Number(rows[0]!.at), waitMs: Number(rows[0]!.wait) };
}

/**
 * Takes up to n pages of the global budget (settings.budget; absent or 'none' = unlimited) and
 * returns how many were granted: n, fewer near the end, 0 once it is spent. The update of the one
 * budget_spent row is serialised by its row lock and recomputed on the latest row, so concurrent
 * claims never grant more than the budget in total.
 */
export async function claimBudget(db: Queryable, n: number): Promise<number> {
  const grant = `CASE WHEN t.total IS NULL THEN $1::bigint ELSE least($1::bigint, greatest(t.total - b.spent, 0)) END`;
  const { rows } = await db.query<{ last_grant: string }>(
    `UPDATE budget_spent b SET spent = b.spent + ${grant}, last_grant = ${grant}
       FROM (SELECT (SELECT CASE WHEN value = 'none' THEN NULL ELSE value::bigint END FROM settings WHERE key = 'budget') AS total) t
      WHERE b.id = 1
      RETURNING b.last_grant`,
    [n],
  );
  if (!rows[0]) throw new Error('budget_spent has no row: create the tables of pgCoordination first');
  return Number(rows[0].last_grant);
}

/** Gives back granted pages a worker did not pull (it stopped early). */
export async function returnBudget(db: Queryable, n: number): Promise<void> {
  await db.query(`UPDATE budget_spent SET spent = greatest(spent - $1::bigint, 0) WHERE id = 1`, [n]);
}
