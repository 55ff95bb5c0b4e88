import type { Db } from '../db-types.js';
import { migratePageOwners } from '../page-owners.js';

/**
 * The beebot database layout for PostgreSQL: the tables of the SQLite store as they stand after
 * all of its migrations (src/db/migrations.ts), created in one go when a PostgreSQL store is first
 * opened (pg/open.ts) and by `beebot db copy` (src/db/copy/). test/pg-store.test.ts compares it with a
 * fresh SQLite database table by table and column by column, so the two cannot drift apart: a new
 * SQLite migration fails that test until this file gets the same change.
 *
 * What differs from SQLite, and why:
 * - Every INTEGER is BIGINT: SQLite's integers are 64-bit (pages.fp is a signed 64-bit
 *   fingerprint, dir reaches 2^32, watch times are epoch ms). node-pg returns BIGINT as a string
 *   unless the store installs a type parser for it (type 20): the store decides per column.
 * - Ids that SQLite assigns (INTEGER PRIMARY KEY rowids) are BIGSERIAL. Ids beebot assigns itself
 *   stay BIGINT PRIMARY KEY: refresh_runs.gen (max + 1) and watch_hubs.page_id (a page's id).
 *   Copying rows with their ids (`beebot db copy`) must move each sequence past them (setval).
 * - REAL is DOUBLE PRECISION (SQLite's REAL is an 8-byte float). Times stay TEXT ISO strings as
 *   in SQLite (and epoch-ms BIGINTs where SQLite has integers), so both stores hold and compare
 *   the same strings.
 * - WITHOUT ROWID is dropped: PostgreSQL tables are heaps with the primary key as an index.
 * - pages_query's predicate is `strpos(key, '?') > 0` (SQLite: `instr(key, '?') > 0`): the
 *   planner uses a partial index only for queries that repeat its predicate.
 * - page_text is FTS5 in SQLite. Here it is a plain table keyed by the page (rowid = pages.id
 *   there), the same four text blocks, and a generated tsvector over them weighted title A,
 *   anchors B, headings C, body D (the order of search/weights.ts), with a GIN index. The 'simple'
 *   configuration splits words and lowercases them without stemming, as FTS5's unicode61 does; it
 *   does not remove diacritics. The foreign key's ON DELETE CASCADE replaces SQLite's
 *   page_text_gone trigger.
 * - SQLite-only migration steps (the data rewrites of older databases) have no counterpart: a
 *   PostgreSQL database starts at the current layout.
 */
export const PG_SCHEMA_VERSION = 18;

export const pgSchema: readonly string[] = [
  `CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,

  `CREATE TABLE sites (
    id          BIGSERIAL PRIMARY KEY,
    url         TEXT NOT NULL,
    name        TEXT,
    short       TEXT,
    grp         TEXT,
    unavailable TEXT,
    pulls       BIGINT NOT NULL DEFAULT 0,
    reward_sum  BIGINT NOT NULL DEFAULT 0,
    reward_max  BIGINT NOT NULL DEFAULT 0,
    deepest     BIGINT,
    added_at    TEXT NOT NULL,
    scope       TEXT CHECK (scope IN ('host', 'domain', 'prefix')),
    include     TEXT,
    exclude     TEXT,
    sitemaps    TEXT CHECK (sitemaps IN ('yes', 'no')),
    sitemaps_read TEXT,
    failures    BIGINT NOT NULL DEFAULT 0,
    unavailable_at BIGINT,
    sitemap_files BIGINT,
    sitemap_problems TEXT
  )`,

  // rebuilt by SQLite migration 4 (fingerprints), widened by 6, 7, 9 and 11
  `CREATE TABLE pages (
    id          BIGSERIAL PRIMARY KEY,
    site_id     BIGINT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    dir         BIGINT NOT NULL,
    fp          BIGINT NOT NULL,
    url         TEXT NOT NULL,
    level       BIGINT NOT NULL,
    found_on    BIGINT REFERENCES pages(id) ON DELETE SET NULL,
    status      TEXT NOT NULL DEFAULT 'queued',
    found_at    TEXT,
    note        TEXT,
    priority    DOUBLE PRECISION,
    anchor      TEXT,
    cues        TEXT,
    cash        DOUBLE PRECISION,
    inherit     DOUBLE PRECISION,
    dist        DOUBLE PRECISION,
    inlinks     BIGINT,
    relevance   DOUBLE PRECISION,
    terms       TEXT,
    anchors     TEXT,
    fingerprint BIGINT,
    text_size   BIGINT,
    bytes       BIGINT,
    fetched_at  TEXT,
    gone_at     TEXT,
    scent       DOUBLE PRECISION,
    sitemap     TEXT,
    attempts    BIGINT NOT NULL DEFAULT 0,
    first_failed_at BIGINT,
    retry_at    BIGINT
  )`,
  `CREATE INDEX pages_seen ON pages (site_id, dir, fp, level)`,
  `CREATE INDEX pages_frontier ON pages (site_id, status, level, id)`,
  `CREATE INDEX pages_query ON pages (site_id, key) WHERE strpos(key, '?') > 0`,
  `CREATE INDEX pages_best ON pages (site_id, priority DESC, level, id) WHERE status = 'queued' AND priority IS NOT NULL`,
  `CREATE INDEX pages_retry ON pages (site_id, retry_at) WHERE retry_at IS NOT NULL`,

  `CREATE TABLE fetches (
    seq              BIGSERIAL PRIMARY KEY,
    site_id          BIGINT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    page_id          BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    final_url        TEXT,
    http_status      BIGINT,
    content_type     TEXT,
    bytes            BIGINT,
    encoding         TEXT,
    encoding_source  TEXT,
    error            TEXT,
    reward           BIGINT NOT NULL,
    ms               BIGINT NOT NULL,
    at               TEXT NOT NULL,
    retries          BIGINT NOT NULL DEFAULT 0,
    note             TEXT,
    reward_urls      BIGINT,
    reward_hosts     BIGINT,
    reward_pairs     BIGINT,
    content_length   BIGINT,
    last_modified    TEXT,
    expires          TEXT,
    etag             TEXT,
    cache_control    TEXT,
    content_language TEXT,
    title            TEXT
  )`,
  `CREATE INDEX fetches_site ON fetches (site_id, seq)`,
  `CREATE INDEX fetches_page ON fetches (page_id, seq)`,

  `CREATE TABLE hops (
    fetch_seq BIGINT NOT NULL REFERENCES fetches(seq) ON DELETE CASCADE,
    n         BIGINT NOT NULL,
    url       TEXT NOT NULL,
    status    BIGINT,
    location  TEXT,
    PRIMARY KEY (fetch_seq, n)
  )`,

  `CREATE TABLE external_links (
    id        BIGSERIAL PRIMARY KEY,
    site_id   BIGINT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    page_id   BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    key       TEXT NOT NULL,
    url       TEXT NOT NULL,
    level     BIGINT NOT NULL,
    anchor    TEXT NOT NULL,
    rel       TEXT NOT NULL,
    tag       TEXT NOT NULL,
    found_at  TEXT,
    host      TEXT NOT NULL DEFAULT '',
    last_seen TEXT,
    gone_at   TEXT,
    UNIQUE (page_id, key)
  )`,
  `CREATE INDEX external_site ON external_links (site_id, id)`,
  `CREATE INDEX external_gone ON external_links (gone_at) WHERE gone_at IS NOT NULL`,

  `CREATE TABLE bad_links (
    id        BIGSERIAL PRIMARY KEY,
    site_id   BIGINT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    page_id   BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    raw       TEXT NOT NULL,
    reason    TEXT NOT NULL,
    found_at  TEXT,
    last_seen TEXT,
    gone_at   TEXT,
    UNIQUE (page_id, raw)
  )`,
  `CREATE INDEX bad_site ON bad_links (site_id, id)`,
  `CREATE INDEX bad_gone ON bad_links (gone_at) WHERE gone_at IS NOT NULL`,

  `CREATE TABLE deleted_links (
    site_id    BIGINT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('internal', 'external', 'bad')),
    key        TEXT NOT NULL,
    deleted_at TEXT NOT NULL,
    PRIMARY KEY (site_id, kind, key)
  )`,

  `CREATE TABLE hosts (
    host           TEXT PRIMARY KEY,
    delay_ms       BIGINT NOT NULL,
    crawl_delay_ms BIGINT,
    clamped        BIGINT NOT NULL DEFAULT 0,
    robots         TEXT,
    failures       BIGINT NOT NULL DEFAULT 0,
    paused_until   TEXT,
    updated_at     TEXT NOT NULL
  )`,

  // no foreign keys and no index on dst, as in SQLite (each would cost the crawl a lookup per link)
  `CREATE TABLE edges (
    src       BIGINT NOT NULL,
    dst       BIGINT NOT NULL,
    anchor    TEXT,
    found_at  TEXT,
    last_seen TEXT,
    gone_at   TEXT,
    PRIMARY KEY (src, dst)
  )`,

  `CREATE TABLE url_checks (
    key        TEXT PRIMARY KEY,
    url        TEXT NOT NULL,
    method     TEXT NOT NULL,
    status     BIGINT,
    final_url  TEXT,
    error      TEXT,
    checked_at TEXT NOT NULL
  )`,

  `CREATE TABLE param_rules (
    site_id BIGINT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    path    TEXT NOT NULL,
    param   TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('required', 'required-from', 'optional', 'dropped')),
    arg     TEXT,
    PRIMARY KEY (site_id, path, param)
  )`,

  // FTS5 in SQLite; here a plain table with a generated tsvector and a GIN index (see the header)
  `CREATE TABLE page_text (
    page_id  BIGINT PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
    title    TEXT,
    anchors  TEXT,
    headings TEXT,
    body     TEXT,
    tsv      tsvector GENERATED ALWAYS AS (
               setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
               setweight(to_tsvector('simple', coalesce(anchors, '')), 'B') ||
               setweight(to_tsvector('simple', coalesce(headings, '')), 'C') ||
               setweight(to_tsvector('simple', coalesce(body, '')), 'D')
             ) STORED
  )`,
  `CREATE INDEX page_text_search ON page_text USING GIN (tsv)`,

  `CREATE TABLE refresh_runs (
    gen         BIGINT PRIMARY KEY,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    kind        TEXT NOT NULL DEFAULT 'all',
    schedule    TEXT,
    sites       TEXT,
    budget_ms   DOUBLE PRECISION,
    delta       DOUBLE PRECISION,
    value       TEXT,
    cost_a      DOUBLE PRECISION,
    cost_b      DOUBLE PRECISION
  )`,

  `CREATE TABLE refreshes (
    seq           BIGSERIAL PRIMARY KEY,
    gen           BIGINT NOT NULL,
    page_id       BIGINT NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    action        TEXT NOT NULL,
    http_status   BIGINT,
    error         TEXT,
    etag          TEXT,
    last_modified TEXT,
    at            TEXT NOT NULL,
    bytes         BIGINT,
    ms            BIGINT,
    est_ms        DOUBLE PRECISION,
    changed       BIGINT,
    links_added   BIGINT,
    links_gone    BIGINT,
    scent         DOUBLE PRECISION
  )`,
  `CREATE UNIQUE INDEX refreshes_page ON refreshes (gen, page_id)`,
  `CREATE INDEX refreshes_last ON refreshes (page_id, seq)`,

  `CREATE TABLE refresh_plan (
    gen     BIGINT NOT NULL,
    rank    BIGINT NOT NULL,
    page_id BIGINT NOT NULL,
    est_ms  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (gen, rank)
  )`,

  `CREATE TABLE watch_hubs (
    page_id     BIGINT PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
    site_id     BIGINT NOT NULL,
    grp         TEXT NOT NULL,
    added       TEXT NOT NULL CHECK (added IN ('auto', 'manual')),
    added_at    BIGINT NOT NULL,
    removed_at  BIGINT,
    first_check BIGINT,
    last_check  BIGINT,
    next_check  BIGINT
  )`,
  `CREATE INDEX watch_due ON watch_hubs (next_check) WHERE removed_at IS NULL`,

  `CREATE TABLE watch_items (
    id       BIGSERIAL PRIMARY KEY,
    hub_id   BIGINT NOT NULL,
    kind     TEXT NOT NULL CHECK (kind IN ('page', 'external')),
    url      TEXT NOT NULL,
    grp      TEXT NOT NULL,
    found_at BIGINT NOT NULL,
    from_t   BIGINT NOT NULL,
    to_t     BIGINT NOT NULL,
    point    BIGINT,
    source   TEXT NOT NULL CHECK (source IN ('published', 'midpoint', 'interval')),
    UNIQUE (hub_id, kind, url)
  )`,
  `CREATE INDEX watch_items_group ON watch_items (grp, to_t)`,

  `CREATE TABLE watch_checks (
    seq           BIGSERIAL PRIMARY KEY,
    hub_id        BIGINT NOT NULL,
    at            BIGINT NOT NULL,
    action        TEXT NOT NULL,
    http_status   BIGINT,
    new_items     BIGINT NOT NULL,
    next_check    BIGINT NOT NULL,
    schedule      TEXT NOT NULL,
    etag          TEXT,
    last_modified TEXT
  )`,
  `CREATE INDEX watch_checks_hub ON watch_checks (hub_id, seq)`,
];

/**
 * The steps that bring a PostgreSQL store of an older layout to this one, by the version they
 * start from (the SQLite migration of the same change beside each): an older store opens.
 */
export const pgUpgrades: Readonly<Record<number, readonly string[]>> = {
  12: [], // session ids: a setting, no table changes
  13: [
    "ALTER TABLE sites ADD COLUMN scope TEXT CHECK (scope IN ('host', 'domain', 'prefix'))",
    'ALTER TABLE sites ADD COLUMN include TEXT',
    'ALTER TABLE sites ADD COLUMN exclude TEXT',
    "ALTER TABLE sites ADD COLUMN sitemaps TEXT CHECK (sitemaps IN ('yes', 'no'))",
    'ALTER TABLE sites ADD COLUMN sitemaps_read TEXT',
    'ALTER TABLE pages ADD COLUMN sitemap TEXT',
  ],
  14: [
    'ALTER TABLE pages ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE pages ADD COLUMN first_failed_at BIGINT',
    'ALTER TABLE pages ADD COLUMN retry_at BIGINT',
    'CREATE INDEX pages_retry ON pages (site_id, retry_at) WHERE retry_at IS NOT NULL',
    'ALTER TABLE sites ADD COLUMN failures BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE sites ADD COLUMN unavailable_at BIGINT',
  ],
  15: ["INSERT INTO settings (key, value) SELECT 'order', 'bfs' WHERE EXISTS (SELECT 1 FROM fetches) ON CONFLICT (key) DO NOTHING"],
  16: ['ALTER TABLE sites ADD COLUMN sitemap_files BIGINT', 'ALTER TABLE sites ADD COLUMN sitemap_problems TEXT'],
  17: [], // each page to its owner: a rewrite (pgRewrites), no change of layout
};

/** Data rewrites by beebot's own rules, each run after the upgrade from its version (SQLite's `rewrites`). */
export const pgRewrites: Readonly<Partial<Record<number, (db: Db) => void>>> = { 17: migratePageOwners };
