/**
 * How the database layout came about, one migration per entry (applied in order, tracked by
 * PRAGMA user_version): they bring a database of an older version to the current layout. A new
 * database is created at that layout directly (tables.ts, sqlite-schema.ts); test/db/schema.test.ts
 * checks that climbing the migrations ends there. A change of layout is a new migration here and
 * the same change, with its `since`, in tables.ts.
 *
 * The article's five tables are `settings`, `sites` (seeds), `pages` (internal links: one row per
 * internal URL of a site, lowest level wins, with its processed status), `external_links` and
 * `bad_links`. `fetches` is the pull log: one row per page pulled from the frontier, in crawl
 * order, with the page's reward (external links newly stored from it) — the bandit and the
 * replay tool read it. `hops` records every HTTP request a pull made (redirects included).
 * A migration may have a rewrite (`rewrites`): data changed by beebot's own rules in JavaScript.
 */
import type { Db } from './db-types.js';
import { migratePageOwners } from './page-owners.js';
import { sqliteLayoutStep } from './sqlite-schema.js';

/**
 * The default order became value (with the pages scheduler). A database with fetched pages was
 * crawled breadth-first under rr-ucb: it keeps that order, so a resumed crawl goes on as it began.
 * PostgreSQL stores take the same step (pg/schema.ts).
 */
export const keepBreadthFirst = "INSERT INTO settings (key, value) SELECT 'order', 'bfs' WHERE EXISTS (SELECT 1 FROM fetches) ON CONFLICT (key) DO NOTHING";

// From schema 14 on, a migration's change of layout is made from the table list (tables.ts), as
// PostgreSQL's upgrades are; the earlier ones are kept as they were written.
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
    id INTEGER PRIMARY KEY, site_id INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE, raw TEXT NOT NULL, reason TEXT NOT NULL,
    UNIQUE (page_id, raw)
  );
  CREATE INDEX bad_site ON bad_links (site_id, id);
  `,
  // 2: when each link was stored (for `links --since`), and the links a user deleted.
  `
  ALTER TABLE pages ADD COLUMN found_at TEXT;           -- NULL for start pages: the site's added_at stands in
  ALTER TABLE external_links ADD COLUMN found_at TEXT;
  ALTER TABLE bad_links ADD COLUMN found_at TEXT;

  -- Older databases: a page's links were stored when the page was pulled, so the pull log gives
  -- their time (links on the target of an in-site redirect stay NULL: that page has no pull of its own).
  UPDATE external_links SET found_at = f.at
    FROM (SELECT page_id, min(at) AS at FROM fetches GROUP BY page_id) f WHERE f.page_id = external_links.page_id;
  UPDATE bad_links SET found_at = f.at
    FROM (SELECT page_id, min(at) AS at FROM fetches GROUP BY page_id) f WHERE f.page_id = bad_links.page_id;
  UPDATE pages SET found_at = f.at
    FROM (SELECT page_id, min(at) AS at FROM fetches GROUP BY page_id) f WHERE f.page_id = pages.found_on;

  -- Tombstones: a deleted link is not stored again for its site by a later crawl (unless the crawl
  -- allows re-adding). key = pages.key, external_links.key or bad_links.raw.
  CREATE TABLE deleted_links (
    site_id    INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('internal', 'external', 'bad')),
    key        TEXT NOT NULL,
    deleted_at TEXT NOT NULL,
    PRIMARY KEY (site_id, kind, key)
  ) WITHOUT ROWID;
  `,
  // 3: politeness and traps — why a page was not fetched, retries per pull, per-host state.
  `
  ALTER TABLE pages ADD COLUMN note TEXT;                -- robots-denied / trap name / cap
  ALTER TABLE fetches ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE fetches ADD COLUMN note TEXT;              -- e.g. links-capped
  CREATE TABLE hosts (
    host          TEXT PRIMARY KEY,
    delay_ms      INTEGER NOT NULL,                     -- in force: the crawl's delay or a longer Crawl-delay
    crawl_delay_ms INTEGER,                             -- what robots.txt asked for (before clamping)
    clamped       INTEGER NOT NULL DEFAULT 0,
    robots        TEXT,                                 -- summary of robots.txt
    failures      INTEGER NOT NULL DEFAULT 0,           -- consecutive
    paused_until  TEXT,
    updated_at    TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 4: the seen-set by fingerprint (see url/key-hash.ts). The crawl asks it for every internal link
  // it finds; the unique index on the URL text was three times the size, and at a million links
  // each lookup read the disk. A page's identity within its site is now its key's fingerprint,
  // kept unique by the crawl's one writer (store/pull-writer.ts). The table is rebuilt (SQLite cannot drop a
  // UNIQUE constraint); db.ts turns foreign keys off around it, so dropping the old table
  // cascades nothing.
  `
  CREATE TABLE pages_v4 (
    id        INTEGER PRIMARY KEY,         -- discovery order: BFS ties are broken by it
    site_id   INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    key       TEXT NOT NULL,               -- normalized identity
    dir       INTEGER NOT NULL,            -- fingerprint(key).dir: its directory, for locality
    fp        INTEGER NOT NULL,            -- fingerprint(key).fp: the identity
    url       TEXT NOT NULL,               -- first spelling seen: what is fetched
    level     INTEGER NOT NULL,
    found_on  INTEGER REFERENCES pages(id) ON DELETE SET NULL,
    status    TEXT NOT NULL DEFAULT 'queued', -- queued | done | not-html | error | redirect | robots-denied | trap
    found_at  TEXT,
    note      TEXT
  );
  INSERT INTO pages_v4 (id, site_id, key, dir, fp, url, level, found_on, status, found_at, note)
    SELECT id, site_id, key, beebot_dir(key), beebot_fp(key), url, level, found_on, status, found_at, note FROM pages;
  DROP TABLE pages;
  ALTER TABLE pages_v4 RENAME TO pages;
  CREATE INDEX pages_seen ON pages (site_id, dir, fp, level);
  CREATE INDEX pages_frontier ON pages (site_id, status, level, id);
  -- the query-variants trap counts a path's stored query strings
  CREATE INDEX pages_query ON pages (site_id, key) WHERE instr(key, '?') > 0;
  `,
  // 5: one page, one pull; what the user counts. Keys spell https as http (url.ts), so rows are
  // rekeyed; a page linking both spellings of one external URL keeps one row of the pair. Every
  // external link carries its host (www. folded, as keys): the crawl loads keys and hosts into
  // memory to tell what a link is new to (known-external.ts); indexes for that on this table cost
  // a quarter of the crawl's speed.
  // Older pulls stored only the pairs reward: the database keeps counting pairs unless told otherwise.
  `
  UPDATE pages SET key = 'http:' || substr(key, 7), dir = beebot_dir('http:' || substr(key, 7)), fp = beebot_fp('http:' || substr(key, 7))
    WHERE key LIKE 'https:%';
  UPDATE OR IGNORE external_links SET key = 'http:' || substr(key, 7) WHERE key LIKE 'https:%';
  DELETE FROM external_links WHERE key LIKE 'https:%';
  UPDATE OR IGNORE deleted_links SET key = 'http:' || substr(key, 7) WHERE kind <> 'bad' AND key LIKE 'https:%';
  DELETE FROM deleted_links WHERE kind <> 'bad' AND key LIKE 'https:%';
  ALTER TABLE external_links ADD COLUMN host TEXT NOT NULL DEFAULT '';
  UPDATE external_links SET host = coalesce(beebot_key_host(key), '');
  ALTER TABLE fetches ADD COLUMN reward_urls INTEGER;    -- NULL: pulled before migration 5
  ALTER TABLE fetches ADD COLUMN reward_hosts INTEGER;
  ALTER TABLE fetches ADD COLUMN reward_pairs INTEGER;
  UPDATE fetches SET reward_pairs = reward;
  INSERT OR IGNORE INTO settings (key, value) SELECT 'reward', 'pairs' WHERE EXISTS (SELECT 1 FROM fetches);
  `,
  // 6: best-first order inside a site (src/schedule/links). NULL in breadth-first crawls, so they pay for
  // neither the columns nor the index: the index holds only queued pages that have a priority.
  `
  ALTER TABLE pages ADD COLUMN priority REAL;            -- predicted new external URLs, higher first
  ALTER TABLE pages ADD COLUMN anchor TEXT;              -- anchor text of the link that queued it
  CREATE INDEX pages_best ON pages (site_id, priority DESC, level, id) WHERE status = 'queued' AND priority IS NOT NULL;
  `,
  // 7: ordered crawls keep with each queued page what the focused-crawling article's methods need
  // (src/schedule/links): the cues of the link that queued it, OTIE cash, Shark-Search inheritance, the
  // tunnel distance and how many fetched pages link to it (the template rule); topic-focused crawls
  // (src/schedule/focus) each pulled page's relevance and terms. NULL elsewhere.
  `
  ALTER TABLE pages ADD COLUMN cues TEXT;
  ALTER TABLE pages ADD COLUMN cash REAL;
  ALTER TABLE pages ADD COLUMN inherit REAL;
  ALTER TABLE pages ADD COLUMN dist REAL;
  ALTER TABLE pages ADD COLUMN inlinks INTEGER;
  ALTER TABLE pages ADD COLUMN relevance REAL;           -- topic-focused crawls: cosine similarity to the topic
  ALTER TABLE pages ADD COLUMN terms TEXT;               -- and the page's term counts (JSON), to rebuild the topic
  `,
  // 8: the site's link graph and page facts (the web-mapping article). `edges` keeps every
  // internal link once per (page, page) pair by page id: compact, and written in the page's own
  // savepoint. No foreign keys and no index on dst: each would cost the crawl a B-tree lookup per
  // link; readers join to pages, and deleting pages deletes their edges (links.ts, sites.ts).
  // Older crawls kept only each page's first "found on": that is the graph they get.
  // `url_checks`: external URLs checked by `beebot check`, once per key, with when.
  `
  CREATE TABLE edges (
    src    INTEGER NOT NULL,                -- pages.id of the linking page (its content page after an in-site redirect)
    dst    INTEGER NOT NULL,                -- pages.id of the linked page
    anchor TEXT,                            -- the first link's anchor text; NULL: src redirected to dst
    PRIMARY KEY (src, dst)
  ) WITHOUT ROWID;
  INSERT OR IGNORE INTO edges (src, dst, anchor) SELECT found_on, id, coalesce(anchor, '') FROM pages WHERE found_on IS NOT NULL;
  ALTER TABLE fetches ADD COLUMN content_length INTEGER;  -- the Content-Length header (bytes is what was read)
  ALTER TABLE fetches ADD COLUMN last_modified TEXT;
  ALTER TABLE fetches ADD COLUMN expires TEXT;
  ALTER TABLE fetches ADD COLUMN etag TEXT;
  ALTER TABLE fetches ADD COLUMN cache_control TEXT;
  ALTER TABLE fetches ADD COLUMN content_language TEXT;
  ALTER TABLE fetches ADD COLUMN title TEXT;              -- an HTML page's <title>
  CREATE TABLE url_checks (
    key        TEXT PRIMARY KEY,            -- external_links.key
    url        TEXT NOT NULL,               -- what was requested
    method     TEXT NOT NULL,               -- HEAD, or GET when HEAD failed or was refused
    status     INTEGER,                     -- final HTTP status after redirects; NULL on a network error
    final_url  TEXT,
    error      TEXT,
    checked_at TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 9: URL parameter rules per site and script path (src/params); a URL breaking them is stored
  // as a page with status 'ignored'. arg: required-from's values as a JSON array, optional's default.
  // Full-text search (src/search, setting index-text): each fetched HTML page's text blocks in
  // one FTS5 row (rowid = pages.id), a column per block so bm25 weighs each; title and anchors
  // first, so reading them never walks the body's overflow pages. pages.anchors gathers the
  // distinct anchor texts of the links to a page as they are found.
  `
  CREATE TABLE param_rules (
    site_id INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    path    TEXT NOT NULL,
    param   TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('required', 'required-from', 'optional', 'dropped')),
    arg     TEXT,
    PRIMARY KEY (site_id, path, param)
  ) WITHOUT ROWID;

  ALTER TABLE pages ADD COLUMN anchors TEXT;             -- distinct anchor texts of links to it, one a line
  CREATE VIRTUAL TABLE page_text USING fts5(title, anchors, headings, body, tokenize = 'unicode61 remove_diacritics 2');
  CREATE TRIGGER page_text_gone AFTER DELETE ON pages BEGIN DELETE FROM page_text WHERE rowid = old.id; END;
  `,
  // 10: re-crawl what changed (\`crawl --refresh\`, src/refresh/full-pass.ts). Each refresh run is a
  // generation; \`refreshes\` logs each page it re-checked, once per generation, with the validators
  // (ETag, Last-Modified) now in force. What a run has checked is that log, not a column of pages,
  // so a 304 changes no row of pages, edges or the link tables, and a stopped run resumes with the
  // pages it has no row for. Kept apart from \`fetches\` so the bandit's history, budgets and reports
  // stay the crawl's. A 404/410 marks the page 'gone' (its outgoing links removed).
  `
  CREATE TABLE refresh_runs (
    gen         INTEGER PRIMARY KEY,
    started_at  TEXT NOT NULL,
    finished_at TEXT                       -- NULL: under way (the next --refresh resumes it)
  );
  CREATE TABLE refreshes (
    seq           INTEGER PRIMARY KEY,
    gen           INTEGER NOT NULL,        -- refresh_runs.gen
    page_id       INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    action        TEXT NOT NULL,           -- keep (304) | replace (links re-read) | gone (404/410) | retry (5xx, network) | skipped (robots)
    http_status   INTEGER,
    error         TEXT,
    etag          TEXT,                    -- validators for the next refresh: this answer's, else the previous ones
    last_modified TEXT,
    at            TEXT NOT NULL
  );
  CREATE UNIQUE INDEX refreshes_page ON refreshes (gen, page_id);
  CREATE INDEX refreshes_last ON refreshes (page_id, seq);
  `,
  // 11: link history and S.C.E.N.T. (src/refresh). A link missing from a re-read page
  // is marked gone (when, and when it was last seen), not deleted; one seen again is live again.
  // A live link's last sighting is its page's: the later of the page's last read (fetched_at) and
  // its last refresh answering "unchanged", so a 304 writes no row of these tables. An edge
  // written by a crawl has found_at NULL: it was found when its page was read (a refresh stamps
  // the time before it moves fetched_at on). A page keeps a fingerprint of its text and links and
  // the size of its text, so a re-read knows whether it changed and by how much; and its scent.
  // `beebot refresh` runs iterations (refresh_runs of kind 'scent'): each plans which pages to
  // check under its time budget (refresh_plan), so a stopped iteration resumes its own plan.
  `
  ALTER TABLE pages ADD COLUMN fingerprint INTEGER;      -- 48 bits of SHA-1 over its text and links (page-fingerprint.ts)
  ALTER TABLE pages ADD COLUMN text_size INTEGER;        -- characters of its text (title, headings, body)
  ALTER TABLE pages ADD COLUMN bytes INTEGER;            -- size of its last answer with content (a check's time grows with it)
  ALTER TABLE pages ADD COLUMN fetched_at TEXT;          -- when its content was last read (crawl or refresh)
  ALTER TABLE pages ADD COLUMN gone_at TEXT;             -- when a refresh found it 404/410
  ALTER TABLE pages ADD COLUMN scent REAL;               -- S.C.E.N.T.: NULL until refreshing starts
  UPDATE pages SET fetched_at = f.at, bytes = f.bytes FROM (SELECT page_id, max(at) AS at, bytes FROM fetches GROUP BY page_id) f
    WHERE f.page_id = pages.id AND pages.status IN ('done', 'not-html', 'error', 'gone');
  UPDATE pages SET gone_at = r.at FROM (SELECT page_id, max(at) AS at FROM refreshes WHERE action = 'gone' GROUP BY page_id) r
    WHERE r.page_id = pages.id AND pages.status = 'gone';
  ALTER TABLE external_links ADD COLUMN last_seen TEXT;  -- set when it goes: its page's last read or check that still had it
  ALTER TABLE external_links ADD COLUMN gone_at TEXT;
  ALTER TABLE bad_links ADD COLUMN last_seen TEXT;
  ALTER TABLE bad_links ADD COLUMN gone_at TEXT;
  ALTER TABLE edges ADD COLUMN found_at TEXT;            -- NULL: when src was read (its fetched_at)
  ALTER TABLE edges ADD COLUMN last_seen TEXT;
  ALTER TABLE edges ADD COLUMN gone_at TEXT;
  -- a check sends the validators of the page's last answer: without this, finding its fetch read the whole log
  CREATE INDEX fetches_page ON fetches (page_id, seq);
  CREATE INDEX external_gone ON external_links (gone_at) WHERE gone_at IS NOT NULL;
  CREATE INDEX bad_gone ON bad_links (gone_at) WHERE gone_at IS NOT NULL;

  ALTER TABLE refresh_runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'all';  -- all: crawl --refresh; scent: a beebot refresh iteration
  ALTER TABLE refresh_runs ADD COLUMN schedule TEXT;     -- scent | uniform | change-rate
  ALTER TABLE refresh_runs ADD COLUMN sites TEXT;        -- JSON array of site ids; NULL: all
  ALTER TABLE refresh_runs ADD COLUMN budget_ms REAL;    -- the iteration's time budget
  ALTER TABLE refresh_runs ADD COLUMN delta REAL;        -- the scent every page gains after it
  ALTER TABLE refresh_runs ADD COLUMN value TEXT;        -- the value function: log | linear | binary
  ALTER TABLE refresh_runs ADD COLUMN cost_a REAL;       -- check time = cost_a * bytes + cost_b (ms)
  ALTER TABLE refresh_runs ADD COLUMN cost_b REAL;
  ALTER TABLE refreshes ADD COLUMN bytes INTEGER;        -- body bytes of the answer (0 for a 304)
  ALTER TABLE refreshes ADD COLUMN ms INTEGER;           -- the check's time
  ALTER TABLE refreshes ADD COLUMN est_ms REAL;          -- the check's time by the cost model
  ALTER TABLE refreshes ADD COLUMN changed INTEGER;      -- characters of content changed (0: unchanged)
  ALTER TABLE refreshes ADD COLUMN links_added INTEGER;  -- links new or back on the page
  ALTER TABLE refreshes ADD COLUMN links_gone INTEGER;
  ALTER TABLE refreshes ADD COLUMN scent REAL;           -- the page's scent after the check
  CREATE TABLE refresh_plan (
    gen     INTEGER NOT NULL,                -- refresh_runs.gen
    rank    INTEGER NOT NULL,
    page_id INTEGER NOT NULL,
    est_ms  REAL NOT NULL,
    PRIMARY KEY (gen, rank)
  ) WITHOUT ROWID;
  `,
  // 12: beebot watch (src/watch): the hub pages watched for new links, the new items
  // found on them with their appearance times, and one log row per check, so a stopped watch
  // resumes exactly (the hub's next check is stored with the check that set it). Times here are
  // epoch ms: the model's hourly counts and the schedules are arithmetic on them.
  `
  CREATE TABLE watch_hubs (
    page_id     INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,
    site_id     INTEGER NOT NULL,
    grp         TEXT NOT NULL,             -- host + first path segment (groups.ts); merging happens when fitting
    added       TEXT NOT NULL CHECK (added IN ('auto', 'manual')),
    added_at    INTEGER NOT NULL,
    removed_at  INTEGER,                   -- set by watch remove: not watched, not added again automatically
    first_check INTEGER,                   -- when watching it began (the group's history starts there)
    last_check  INTEGER,
    next_check  INTEGER                    -- NULL: due now
  );
  CREATE INDEX watch_due ON watch_hubs (next_check) WHERE removed_at IS NULL;
  CREATE TABLE watch_items (
    id        INTEGER PRIMARY KEY,
    hub_id    INTEGER NOT NULL,            -- watch_hubs.page_id
    kind      TEXT NOT NULL CHECK (kind IN ('page', 'external')),
    url       TEXT NOT NULL,
    grp       TEXT NOT NULL,               -- the hub's group key
    found_at  INTEGER NOT NULL,            -- the check that first saw it
    from_t    INTEGER NOT NULL,            -- appeared in (from_t, to_t] (appearance.ts)
    to_t      INTEGER NOT NULL,
    point     INTEGER,                     -- the appearance time when known closely enough; NULL: only the interval
    source    TEXT NOT NULL CHECK (source IN ('published', 'midpoint', 'interval')),
    UNIQUE (hub_id, kind, url)
  );
  CREATE INDEX watch_items_group ON watch_items (grp, to_t);
  CREATE TABLE watch_checks (
    seq         INTEGER PRIMARY KEY,
    hub_id      INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    action      TEXT NOT NULL,             -- as refreshes.action: keep | replace | gone | retry | skipped
    http_status INTEGER,
    new_items   INTEGER NOT NULL,
    next_check  INTEGER NOT NULL,
    schedule    TEXT NOT NULL,             -- learned | learned-fixed (no model yet) | poisson | fixed
    etag        TEXT,                      -- validators for the next check: this answer's, else the previous ones
    last_modified TEXT
  );
  CREATE INDEX watch_checks_hub ON watch_checks (hub_id, seq);
  `,
  // Link keys leave session ids out (src/url/session-ids.ts). A database with fetched pages keeps
  // them in its keys: under the new rule a resumed crawl would store again, under a second key,
  // every page it has stored with a session id in its URL. New databases strip them.
  `
  INSERT INTO settings (key, value)
    SELECT 'session-ids', 'keep' WHERE EXISTS (SELECT 1 FROM fetches)
    ON CONFLICT (key) DO NOTHING;
  `,
  // Sites as researchers define them (src/url/scope.ts): each site's own scope (NULL: the scope
  // setting, as before), its include/exclude patterns (JSON arrays of what the user typed), and
  // whether its sitemaps seed its frontier (NULL: the sitemaps setting) and when they were read.
  // A page queued from a sitemap names the sitemap that listed it.
  sqliteLayoutStep(14),
  // Transient failures are "not now" (net/failure-rule.ts): a queued page keeps its failed
  // attempts and the time before which it is not asked again; a site keeps its pages failed in a
  // row (give-up-after) and when it became Not Available (retried in a later run). Times: epoch ms.
  sqliteLayoutStep(15),
  // The default order became value: keepBreadthFirst.
  keepBreadthFirst,
  // What a site's sitemaps gave when they were read (src/net/sitemaps.ts): the files read, and
  // the ones that could not be read or are not sitemaps, with why (a JSON array of lines).
  sqliteLayoutStep(17),
  // A page is the most specific site's (src/url/scope.ts). A site added inside another after the
  // other had stored pages there left them with the other, and the crawl fetched and counted them
  // for both: each page goes to its owner, kept once, with its pull and links (rewrites below).
  `
  -- no change of layout
  `,
  // A queued page found again nearer the start page in an ordered crawl keeps that level beside
  // it until it is fetched (src/store/queued-levels.ts).
  sqliteLayoutStep(19),
];

/**
 * Data rewrites by beebot's own rules, each run after the migration of its index, in the same
 * transaction, with foreign keys on (a deleted row's dependents go with it).
 */
export const rewrites: Readonly<Partial<Record<number, (db: Db) => void>>> = { 17: migratePageOwners };
