import type { Db, RunResult, Statement } from '../db/db.js';
import { greatest, insertIgnore, jsonValues, least, onConflictIgnore, returning, textPosition, typed } from '../db/dialect.js';

/**
 * The SQL the pull writer runs (pull-writer.ts), prepared once per crawl. Most statements run for
 * every page, some for every link: the writer only binds and runs them.
 */

/** PostgreSQL types of the named parameters the link inserts bind in a SELECT list. */
const PARAM_TYPES: Record<string, string> = {
  site: 'bigint', page: 'bigint', key: 'text', dir: 'bigint', fp: 'bigint', url: 'text', level: 'bigint', on: 'bigint', at: 'text',
  priority: 'float8', anchor: 'text', cues: 'text', cash: 'float8', inherit: 'float8', dist: 'float8', inlinks: 'bigint',
  status: 'text', note: 'text', host: 'text', rel: 'text', tag: 'text', reason: 'text',
};

/** Named parameters as a SELECT list (typed where PostgreSQL needs it). */
const selectList = (db: Db, names: string[]) => names.map((n) => typed(db, `@${n}`, PARAM_TYPES[n]!)).join(', ');

/**
 * A new page, or nothing when its row exists: on PostgreSQL a page another worker inserted first is
 * no error (pages_identity), the row is simply not inserted. On SQLite this writer is the only one,
 * and a unique page is its seen-set's business. A tombstone of `guard`'s kind keeps the row out
 * (deleted_links); without one the row is a plain VALUES list, which SQLite inserts faster than a
 * SELECT's (1.2 against 1.6 s CPU for 78,000 rows of an ordered crawl's 15 columns; 0.75 against
 * 0.85 s for a breadth-first one's 8). Bound by position from the row's fields: it runs for every
 * new page, and binding an ordered crawl's 15 by name took about 0.5 us a row more (of 4.7).
 */
function newPage(db: Db, columns: string[], guard: string | null): PageInsert {
  const names = ['site', ...columns.map(param)];
  const list = names.map((n) => typed(db, '?', PARAM_TYPES[n]!)).join(', ');
  const row =
    guard === null ? `VALUES (${list})`
    : `SELECT ${list} WHERE NOT EXISTS (SELECT 1 FROM deleted_links d WHERE d.site_id = ? AND d.kind = '${guard}' AND d.key = ?)`;
  const st = db.prepare(`INSERT INTO pages (site_id, ${columns.join(', ')}) ${row}${onConflictIgnore(db)}${returning(db, 'id')}`);
  const bound = guard === null ? names : [...names, 'site', 'key'];
  return { run: (r) => st.run(bound.map((n) => r[n])) };
}

/** A page's insert, from its row's fields by name (newPage). */
export interface PageInsert {
  run(row: Readonly<Record<string, unknown>>): RunResult;
}

/** The row an insert adds, from named parameters: a VALUES list, or a SELECT when `where` may keep it out. */
const rowOf = (db: Db, names: string[], where: string | null): string =>
  where === null ? `VALUES (${selectList(db, names)})` : `SELECT ${selectList(db, names)} ${where}`;
const param = (column: string) => ({ found_on: 'on', found_at: 'at' })[column] ?? column;
const PAGE = ['key', 'dir', 'fp', 'url', 'level', 'found_on', 'found_at'];

/**
 * The statements that store a page's links. With `guarded`, each skips a link a user deleted: a
 * deleted link leaves a tombstone (site, kind, key), so deleted junk stays deleted across resumes.
 * Most databases have none, so the writer uses the unguarded set while deleted_links is empty.
 */
export function linkStatements(db: Db, guarded: boolean) {
  const notDeleted = (kind: string) =>
    guarded ? `WHERE NOT EXISTS (SELECT 1 FROM deleted_links d WHERE d.site_id = @site AND d.kind = '${kind}' AND d.key = @key)` : null;
  return {
    insertPage: newPage(db, PAGE, guarded ? 'internal' : null),
    insertOrdered: newPage(db, [...PAGE, 'priority', 'anchor', 'cues', 'cash', 'inherit', 'dist', 'inlinks'], guarded ? 'internal' : null),
    heldPage: newPage(db, [...PAGE, 'status', 'note'], guarded ? 'internal' : null),
    external: db.prepare(
      `${insertIgnore(db)} INTO external_links (site_id, page_id, key, url, host, level, anchor, rel, tag, found_at)
       ${rowOf(db, ['site', 'page', 'key', 'url', 'host', 'level', 'anchor', 'rel', 'tag', 'at'], notDeleted('external'))}${onConflictIgnore(db)}`,
    ),
    bad: db.prepare(
      `${insertIgnore(db)} INTO bad_links (site_id, page_id, raw, reason, found_at)
       ${rowOf(db, ['site', 'page', 'key', 'reason', 'at'], notDeleted('bad'))}${onConflictIgnore(db)}`,
    ),
  };
}
export type LinkStatements = ReturnType<typeof linkStatements>;

/** Everything else a pull, a refresh's re-read or a page gone writes. */
export function pullStatements(db: Db) {
  // the keys (or page ids) a refresh found on a page, as one JSON array parameter
  const keys = jsonValues(db, '?', 'text');
  const ids = jsonValues(db, '?', 'bigint');
  return {
    // Is any link deleted (a tombstone)? Asked on every commit, so deletions made while a crawl runs take effect at once.
    anyTombstones: db.prepare('SELECT EXISTS (SELECT 1 FROM deleted_links)').pluck(),
    // The page a pulled URL redirected to is stored whatever: its content was fetched.
    insertPage: newPage(db, PAGE, null),
    // The seen-set (see key-hash.ts): pages_seen answers without reading the table. A page's
    // identity in its site is its fingerprint; this writer, the only one, keeps it unique.
    pageByFp: db.prepare(`SELECT id FROM pages WHERE site_id = @site AND dir = @dir AND fp = @fp`),
    // Positional: it runs for every internal link, and binding by name costs a third more.
    // pages_seen covers it (the id is the rowid): [id, level] without reading the table.
    seen: db.prepare(`SELECT id, level FROM pages WHERE site_id = ? AND dir = ? AND fp = ?`).raw(),
    // The link graph: each (page, page) pair once; the first link's anchor text.
    edge: db.prepare(`${insertIgnore(db)} INTO edges (src, dst, anchor) VALUES (?, ?, ?)${onConflictIgnore(db)}`),
    // Levels are breadth-first levels: a link found nearer the start page moves its page up (lowest
    // level wins), queued or fetched; a fetched page's external links and the pages it links follow.
    lower: db.prepare(`UPDATE pages SET level = ?, found_on = ? WHERE id = ? AND level > ? RETURNING status`).pluck(),
    lowerExternal: db.prepare(`UPDATE external_links SET level = ? WHERE page_id = ? AND level > ?`),
    // the pages a page links that are deeper than one below it (an in-site redirect: than itself)
    deeperChildren: db.prepare(
      `SELECT e.dst, s.level + CASE WHEN s.status = 'redirect' THEN 0 ELSE 1 END FROM edges e
         JOIN pages s ON s.id = e.src JOIN pages d ON d.id = e.dst
        WHERE e.src = ? AND e.gone_at IS NULL AND d.level > s.level + CASE WHEN s.status = 'redirect' THEN 0 ELSE 1 END`,
    ).raw(),
    levelOf: db.prepare(`SELECT level FROM pages WHERE id = ?`).pluck(),
    // Every stored key of the path with some query string; pages_query (partial) answers it.
    queryVariants: db.prepare(`SELECT count(*) FROM pages WHERE site_id = ? AND ${textPosition(db, 'key', `'?'`)} > 0 AND key > ? AND key < ?`).pluck(),
    skip: db.prepare(`UPDATE pages SET status = ?, note = ? WHERE id = ?`),
    // Ordered crawls: a page's state (positional, as seen: [id, level, status, cues, cash, inherit, dist, inlinks]), and what a newly fetched page linking to it changes.
    pageState: db.prepare(
      `SELECT id, level, status, cues, coalesce(cash, 0) AS cash, coalesce(inherit, 0) AS inherit,
         coalesce(dist, 0) AS dist, coalesce(inlinks, 0) AS inlinks FROM pages WHERE site_id = ? AND dir = ? AND fp = ?`,
    ).raw(),
    updateOrdered: db.prepare(
      `UPDATE pages SET cash = @cash, inherit = @inherit, dist = @dist, inlinks = @inlinks, priority = @priority,
         found_on = CASE WHEN level > @level THEN @on ELSE found_on END, level = ${least(db, 'level', '@level')} WHERE id = @id`,
    ),
    spend: db.prepare(`UPDATE pages SET cash = 0 WHERE id = ?`),
    // Focused crawls: the pulled page's relevance, and its terms (a resumed crawl rebuilds the topic from them).
    relevance: db.prepare(`UPDATE pages SET relevance = ?, terms = ? WHERE id = ?`),
    giveUp: db.prepare(`UPDATE sites SET unavailable = ?, unavailable_at = ? WHERE id = ? AND unavailable IS NULL`),
    setStatus: db.prepare(`UPDATE pages SET status = ? WHERE id = ?`),
    // The page whose content was read: its status, and what a refresh compares.
    content: db.prepare(
      `UPDATE pages SET status = ?, level = ${least(db, 'level', '?')}, fingerprint = ?, text_size = ?, bytes = ?, fetched_at = ?, gone_at = NULL, retry_at = NULL WHERE id = ?`,
    ),
    fetch: db.prepare(
      `INSERT INTO fetches (site_id, page_id, final_url, http_status, content_type, bytes, encoding,
         encoding_source, error, reward, ms, at, retries, note, reward_urls, reward_hosts, reward_pairs,
         content_length, last_modified, expires, etag, cache_control, content_language, title)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${returning(db, 'seq')}`,
    ),
    hop: db.prepare(`INSERT INTO hops (fetch_seq, n, url, status, location) VALUES (?, ?, ?, ?, ?)`),
    // A refresh re-reads a page: the links no longer on it are marked gone, with the last time the
    // page was seen with them; links back on it are live again; new ones are added.
    lastSeen: db.prepare(
      `SELECT nullif(${greatest(db, `coalesce(fetched_at, '')`, `coalesce((SELECT at FROM refreshes r WHERE r.page_id = p.id AND r.action = 'keep' AND r.http_status < 400 ORDER BY seq DESC LIMIT 1), '')`)}, '')
         FROM pages p WHERE id = ?`,
    ).pluck(),
    stampEdges: db.prepare(`UPDATE edges SET found_at = (SELECT fetched_at FROM pages WHERE id = @id) WHERE src = @id AND found_at IS NULL`),
    goneEdges: db.prepare(`UPDATE edges SET gone_at = ?, last_seen = ? WHERE src = ? AND gone_at IS NULL AND dst NOT IN (${ids})`),
    backEdges: db.prepare(`UPDATE edges SET gone_at = NULL, last_seen = NULL WHERE src = ? AND gone_at IS NOT NULL AND dst IN (${ids})`),
    newEdge: db.prepare(`${insertIgnore(db)} INTO edges (src, dst, anchor, found_at) VALUES (?, ?, ?, ?)${onConflictIgnore(db)}`),
    goneExternal: db.prepare(`UPDATE external_links SET gone_at = ?, last_seen = ? WHERE page_id = ? AND gone_at IS NULL AND key NOT IN (${keys})`),
    backExternal: db.prepare(`UPDATE external_links SET gone_at = NULL, last_seen = NULL WHERE page_id = ? AND gone_at IS NOT NULL AND key IN (${keys})`),
    goneBad: db.prepare(`UPDATE bad_links SET gone_at = ?, last_seen = ? WHERE page_id = ? AND gone_at IS NULL AND raw NOT IN (${keys})`),
    backBad: db.prepare(`UPDATE bad_links SET gone_at = NULL, last_seen = NULL WHERE page_id = ? AND gone_at IS NOT NULL AND raw IN (${keys})`),
    gonePage: db.prepare(`UPDATE pages SET status = ?, gone_at = coalesce(gone_at, ?) WHERE id = ?`),
    site: db.prepare(
      `UPDATE sites SET pulls = pulls + 1, reward_sum = reward_sum + ?, reward_max = ${greatest(db, 'reward_max', '?')},
         deepest = ${greatest(db, 'coalesce(deepest, -1)', '?')}, unavailable = coalesce(?, unavailable),
         unavailable_at = coalesce(unavailable_at, ?), failures = coalesce(?, failures) WHERE id = ?`,
    ),
    // A page that failed for now stays queued (net/failure-rule.ts); the site's failures in a row.
    defer: db.prepare(`UPDATE pages SET attempts = ?, first_failed_at = ?, retry_at = ? WHERE id = ? AND status = 'queued'`),
    // a held origin's queued pages of one site ('\\' escapes LIKE's wildcards in the origin)
    putOff: db.prepare(
      `UPDATE pages SET retry_at = ? WHERE site_id = ? AND status = 'queued' AND (retry_at IS NULL OR retry_at < ?) AND url LIKE ? ESCAPE '\\'`,
    ),
    failures: db.prepare(`UPDATE sites SET failures = ? WHERE id = ?`),
  };
}
export type PullStatements = ReturnType<typeof pullStatements>;

/** How many edges one multi-row insert writes at most. */
export const EDGE_BATCH = 64;

/** A page's edges, `rows` (src, dst, anchor) triples per statement: per-row calls were most of what the edges cost. */
export function edgeRows(db: Db, rows: number): Statement {
  return db.prepare(`${insertIgnore(db)} INTO edges (src, dst, anchor) VALUES ${Array(rows).fill('(?, ?, ?)').join(', ')}${onConflictIgnore(db)}`);
}
