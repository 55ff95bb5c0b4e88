/**
 * The database layout, one migration per entry (applied in order, tracked by PRAGMA user_version).
 *
 * The article's five tables are `settings`, `sites` (seeds), `pages` (internal links: one row per
 * internal URL of a site, lowest level wins, with its processed status), `external_links` and
 * `bad_links`. `fetches` is the pull log: one row per page pulled from the frontier, in crawl
 * order, with the page's reward (external links newly stored from it) — the bandit and the
 * replay tool read it. `hops` records every HTTP request a pull made (redirects included).
 */
export const migrations: string[] = [
  `
  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE sites (
    id          INTEGER PRIMARY KEY,
    url         TEXT NOT NULL,             -- start address as fetched
    name        TEXT,
    short       TEXT,
    grp         TEXT,                      -- e.g. university / institute
    unavailable TEXT,                      -- reason, when the start page could not be fetched
    pulls       INTEGER NOT NULL DEFAULT 0,  -- pages pulled (bandit t(i))
    reward_sum  INTEGER NOT NULL DEFAULT 0,  -- s(i)
    reward_max  INTEGER NOT NULL DEFAULT 0,  -- largest single-page reward
    deepest     INTEGER,                   -- deepest level fetched
    added_at    TEXT NOT NULL
  );

  CREATE TABLE pages (
    id        INTEGER PRIMARY KEY,         -- discovery order: BFS ties are broken by it
    site_id   INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    key       TEXT NOT NULL,               -- normalized identity
    url       TEXT NOT NULL,               -- first spelling seen: what is fetched
    level     INTEGER NOT NULL,
    found_on  INTEGER REFERENCES pages(id) ON DELETE SET NULL,
    status    TEXT NOT NULL DEFAULT 'queued', -- queued | done | not-html | error | redirect
    UNIQUE (site_id, key)
  );
  CREATE INDEX pages_frontier ON pages (site_id, status, level, id);

  CREATE TABLE fetches (
    seq         INTEGER PRIMARY KEY,       -- pull order across the whole database
    site_id     INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    page_id     INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    final_url   TEXT,                      -- after in-site redirects
    http_status INTEGER,
    content_type TEXT,
    bytes       INTEGER,
    encoding    TEXT,
    encoding_source TEXT,                  -- bom | http | meta | guess | default
    error       TEXT,
    reward      INTEGER NOT NULL,
    ms          INTEGER NOT NULL,
    at          TEXT NOT NULL
  );
  CREATE INDEX fetches_site ON fetches (site_id, seq);

  CREATE TABLE hops (
    fetch_seq INTEGER NOT NULL REFERENCES fetches(seq) ON DELETE CASCADE,
    n         INTEGER NOT NULL,
    url       TEXT NOT NULL,
    status    INTEGER,
    location  TEXT,
    PRIMARY KEY (fetch_seq, n)
  ) WITHOUT ROWID;

  CREATE TABLE external_links (
    id       INTEGER PRIMARY KEY,
    site_id  INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    page_id  INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    url      TEXT NOT NULL,
    level    INTEGER NOT NULL,             -- level of the page it was found on
    anchor   TEXT NOT NULL,
    rel      TEXT NOT NULL,
    tag      TEXT NOT NULL,
    UNIQUE (page_id, key)
  );
  CREATE INDEX external_site ON external_links (site_id, id);

  CREATE TABLE bad_links (
    id      INTEGER PRIMARY KEY,
    site_id INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    raw     TEXT NOT NULL,
    reason  TEXT NOT NULL,
    UNIQUE (page_id, raw)
  );
  CREATE INDEX bad_site ON bad_links (site_id, id);
  `,
];
