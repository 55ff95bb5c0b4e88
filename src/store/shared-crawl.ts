import type { Db, Statement } from '../db/db-types.js';

/** The database clock in epoch ms: workers on machines whose clocks disagree still agree on expiries and slots. */
export const NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** One page of the budget if any is left (t.total null: no budget), computed on the row being updated. */
const GRANT = `CASE WHEN t.total IS NULL OR b.spent < t.total THEN 1 ELSE 0 END`;

/**
 * What one crawl worker needs to share a crawl with the others on one PostgreSQL database
 * (src/crawl/shared-coordinator.ts), each call one statement over the coordination tables
 * (src/db/pg/coordination-tables.ts):
 * - a lease on each page it fetches, so no page is fetched by two workers; a killed worker's
 *   leases expire and the pages are claimable again;
 * - a host mutex with the politeness delay, so one request at a time per host across workers
 *   and the delay between the end of one and the start of the next, as HostGate does in one process;
 * - grants from the global page budget, never more than the budget in total.
 */
export class SharedCrawl {
  private s: Record<string, Statement>;

  constructor(db: Db, readonly worker: string, readonly leaseMs: number) {
    this.s = {
      // The page row lock (FOR UPDATE) waits for a worker committing this page, then sees it done;
      // the lease insert takes over only an expired lease.
      lease: db.prepare(
        `WITH p AS (SELECT id FROM pages WHERE id = ? AND status = 'queued' FOR UPDATE)
         INSERT INTO page_leases (page_id, worker, expires_at) SELECT id, ?, ${NOW} + ? FROM p
         ON CONFLICT (page_id) DO UPDATE SET worker = excluded.worker, expires_at = excluded.expires_at
           WHERE page_leases.expires_at <= ${NOW}
         RETURNING page_id`,
      ).pluck(),
      release: db.prepare(`DELETE FROM page_leases WHERE page_id = ? AND worker = ?`),
      renew: db.prepare(`UPDATE page_leases SET expires_at = ${NOW} + ? WHERE page_id = ? AND worker = ?`),
      others: db.prepare(`SELECT count(*) FROM page_leases WHERE expires_at > ${NOW} AND worker <> ?`).pluck(),
      soonest: db.prepare(`SELECT min(expires_at) - ${NOW} FROM page_leases WHERE expires_at > ${NOW}`).pluck(),
      // Free when next_at has passed: held until the request ends (or `hold` runs out, if the worker dies).
      acquire: db.prepare(
        `INSERT INTO host_slots AS h (host, next_at) VALUES (?, ${NOW} + ?)
         ON CONFLICT (host) DO UPDATE SET next_at = excluded.next_at WHERE h.next_at <= ${NOW}
         RETURNING 0`,
      ).pluck(),
      wait: db.prepare(`SELECT greatest(next_at - ${NOW}, 1) FROM host_slots WHERE host = ?`).pluck(),
      done: db.prepare(`UPDATE host_slots SET next_at = ${NOW} + ? WHERE host = ?`),
      held: db.prepare(`SELECT host, next_at - ${NOW} FROM host_slots WHERE next_at > ${NOW}`).raw(),
      // The grant is computed on b.spent, the row being updated: when a concurrent grant commits
      // first, PostgreSQL re-checks the update on the latest row version, so this one sees that grant.
      // (A count read anywhere else in the statement comes from its snapshot and may be stale.)
      budget: db.prepare(
        `UPDATE budget_spent b SET spent = b.spent + ${GRANT}, last_grant = ${GRANT}
           FROM (SELECT (SELECT CASE WHEN value = 'none' THEN NULL ELSE value::bigint END FROM settings WHERE key = 'budget') AS total) t
          WHERE b.id = 1 RETURNING b.last_grant`,
      ).pluck(),
      giveBack: db.prepare(`UPDATE budget_spent SET spent = greatest(spent - 1, 0) WHERE id = 1`),
      // Pages granted but never fetched (a killed worker) are spent for good: recount when a worker starts.
      recount: db.prepare(`UPDATE budget_spent SET spent = (SELECT count(*) FROM fetches) + (SELECT count(*) FROM page_leases WHERE expires_at > ${NOW}) WHERE id = 1`),
    };
  }

  /** Lease the page to this worker; false when another worker holds it or it is no longer queued. */
  lease(pageId: number): boolean {
    return this.s.lease!.get(pageId, this.worker, this.leaseMs) !== undefined;
  }

  /** Extend this worker's lease; false when it ran out and another worker took the page over. */
  renew(pageId: number): boolean {
    return this.s.renew!.run(this.leaseMs, pageId, this.worker).changes === 1;
  }

  release(pageId: number): void {
    this.s.release!.run(pageId, this.worker);
  }

  /** How many live leases other workers hold: their pages may still add links, or come back. */
  othersBusy(): number {
    return this.s.others!.get(this.worker) as number;
  }

  /** ms until the soonest live lease runs out (null: none) */
  soonestExpiry(): number | null {
    return this.s.soonest!.get() as number | null;
  }

  /** Take the host for one request: 0, or the ms to wait before asking again. */
  acquireHost(host: string, holdMs: number): number {
    if (this.s.acquire!.get(host, holdMs) !== undefined) return 0;
    return (this.s.wait!.get(host) as number | undefined) ?? 1;
  }

  /** Hosts not free now (a request in progress, or its delay), with the ms until they may be (at most: a live request frees it sooner). */
  heldHosts(): Map<string, number> {
    return new Map(this.s.held!.all() as [string, number][]);
  }

  /** The request ended: the host is free again after its delay. */
  releaseHost(host: string, delayMs: number): void {
    this.s.done!.run(delayMs, host);
  }

  /** One page of the global budget: false when it is spent. */
  takeBudget(): boolean {
    return (this.s.budget!.get() as number) > 0;
  }

  returnBudget(): void {
    this.s.giveBack!.run();
  }

  recountBudget(): void {
    this.s.recount!.run();
  }
}
