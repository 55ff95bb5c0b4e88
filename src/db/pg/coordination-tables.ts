/**
 * The tables through which several crawl workers share one crawl on one PostgreSQL database:
 * page leases, the host mutex and the global page budget. openPg (open.ts) creates them;
 * SharedCrawl (src/store/shared-crawl.ts) is what the crawl uses them through.
 *
 * Times are epoch milliseconds of the database's clock, so workers on machines whose clocks
 * disagree still agree on expiries.
 */

/**
 * The coordination tables. Kept apart from pgSchema on purpose: pgSchema must stay equal to the
 * SQLite layout table by table (test/db/pg/pg-store.test.ts), and these tables exist only where several
 * workers share a crawl. Create them after pgSchema (budget_spent starts at the pulls already made).
 */
export const pgCoordination: readonly string[] = [
  // one row per page a worker holds; an expired lease counts as free. Released after the page's commit.
  `CREATE TABLE page_leases (
    page_id    BIGINT PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
    worker     TEXT NOT NULL,
    expires_at BIGINT NOT NULL
  )`,
  // the host mutex: held (by a request in progress) until next_at, then free; on release next_at
  // moves to the end of the host's delay (epoch ms)
  `CREATE TABLE host_slots (
    host    TEXT PRIMARY KEY,
    next_at BIGINT NOT NULL
  )`,
  // the pages granted against settings.budget so far; last_grant is what the latest grant gave
  `CREATE TABLE budget_spent (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    spent      BIGINT NOT NULL,
    last_grant BIGINT NOT NULL DEFAULT 0
  )`,
  `INSERT INTO budget_spent (id, spent) SELECT 1, count(*) FROM fetches`,
  // A page's identity in its site is its fingerprint (url/key-hash.ts). With one writer the
  // writer's seen-set keeps it unique; with several, two may find the same new link at once:
  // this index lets the second insert do nothing (store/pull-writer.ts: ON CONFLICT DO NOTHING).
  `CREATE UNIQUE INDEX pages_identity ON pages (site_id, dir, fp)`,
];
