import type { Rewards } from '../bandit/reward.js';
import type { HeaderFacts } from './pull-record.js';
import type { Db, Statement } from '../db/db.js';
import type { FrontierPage } from './frontier.js';
import { fingerprint } from '../url/key-hash.js';
import { GroupCommit } from '../db/group-commit.js';
import { KnownExternal } from './known-external.js';
import type { FoundLinks, Hold } from '../page/found-links.js';
import { GONE, type Committed, type LinkChanges, type LinkOrder, type PullResult, type SkipStatus } from './pull-record.js';
import type { OrderState } from './frontier.js';
import { TextIndexWriter } from './text-index.js';

/** PostgreSQL types of the named parameters the link inserts bind in a SELECT list. */
const PARAM_TYPES: Record<string, string> = {
  site: 'bigint', page: 'bigint', key: 'text', dir: 'bigint', fp: 'bigint', url: 'text', level: 'bigint', on: 'bigint', at: 'text',
  priority: 'float8', anchor: 'text', cues: 'text', cash: 'float8', inherit: 'float8', dist: 'float8', inlinks: 'bigint',
  status: 'text', note: 'text', host: 'text', rel: 'text', tag: 'text', reason: 'text',
};


export interface PullWriterOptions {
  /** Distinct query strings stored per path and site; more are traps ('query-variants'). */
  maxQueryVariants?: number;
  /** Store links again even when a user deleted them (`beebot links delete`) before. Default false. */
  allowReadd?: boolean;
  /** Where pages are committed; default: a group of its own. */
  group?: GroupCommit;
  /** Which of the three rewards the pull's `reward` (and the site's sums) counts. Default urls. */
  reward?: keyof Rewards;
  /** Ordered crawls (src/order): how the pulled page's links are scored. Without it pages get no priority (breadth-first). */
  order?: LinkOrder;
  /** Keep pages' text and the anchor texts of links to them in the full-text index (setting index-text). */
  indexText?: boolean;
  /** The clock the stored times come from (ms since the epoch); default the real one. */
  now?: () => number;
}

/** Prepared statements for writing a pull; one instance per crawl. */
export class PullWriter {
  private s;

  private maxQueryVariants: number;
  /** Link statements with and without the tombstone check: most databases have no tombstones. */
  private plain;
  private guarded;
  private anyTombstones;
  private mode: keyof Rewards;
  private order: LinkOrder | undefined;
  private now: () => number;
  /** The external URLs and hosts the store holds, per site and in all (see known-external.ts). */
  known: KnownExternal;
  /** The full-text index, when the crawl keeps one. */
  readonly text: TextIndexWriter | null;

  readonly group: GroupCommit;

  constructor(private db: Db, opts: PullWriterOptions = {}) {
    // PostgreSQL: a transaction per page. Other workers wait on the rows a group holds (the
    // site's statistics, new pages), and a commit there costs a round trip, not an fsync per group.
    this.group = opts.group ?? new GroupCommit(db, db.kind === 'pg' ? 1 : 64);
    this.maxQueryVariants = opts.maxQueryVariants ?? Infinity;
    // A deleted link leaves a tombstone (site, kind, key): the crawl skips those links, so deleted
    // junk stays deleted across resumes. Whether any tombstone exists is asked on every commit,
    // so deletions made while this crawl runs take effect at once.
    const pg = db.kind === 'pg';
    // PostgreSQL: parameters in a SELECT list need their types, and a page another worker inserted
    // first is no error (pages_identity, claims.ts): the row is simply not inserted. SQLite: this
    // writer is the only one, and a unique page is its seen-set's business.
    const select = (names: string[]) => names.map((n) => (pg ? `@${n}::${PARAM_TYPES[n]}` : `@${n}`)).join(', ');
    const orIgnore = pg ? 'INSERT' : 'INSERT OR IGNORE';
    const newPage = pg ? ' ON CONFLICT DO NOTHING RETURNING id' : '';
    const ignored = pg ? ' ON CONFLICT DO NOTHING' : '';
    const links = (guard: boolean) => {
      const notDeleted = (kind: string) =>
        guard ? `WHERE NOT EXISTS (SELECT 1 FROM deleted_links d WHERE d.site_id = @site AND d.kind = '${kind}' AND d.key = @key)` : 'WHERE true';
      return {
        insertPage: insertPage(notDeleted('internal')),
        insertOrdered: db.prepare(
          `INSERT INTO pages (site_id, key, dir, fp, url, level, found_on, found_at, priority, anchor, cues, cash, inherit, dist, inlinks)
           SELECT ${select(['site', 'key', 'dir', 'fp', 'url', 'level', 'on', 'at', 'priority', 'anchor', 'cues', 'cash', 'inherit', 'dist', 'inlinks'])} ${notDeleted('internal')}${newPage}`,
        ),
        heldPage: db.prepare(
          `INSERT INTO pages (site_id, key, dir, fp, url, level, found_on, found_at, status, note)
           SELECT ${select(['site', 'key', 'dir', 'fp', 'url', 'level', 'on', 'at', 'status', 'note'])} ${notDeleted('internal')}${newPage}`,
        ),
        external: db.prepare(
          `${orIgnore} INTO external_links (site_id, page_id, key, url, host, level, anchor, rel, tag, found_at)
           SELECT ${select(['site', 'page', 'key', 'url', 'host', 'level', 'anchor', 'rel', 'tag', 'at'])} ${notDeleted('external')}${ignored}`,
        ),
        bad: db.prepare(
          `${orIgnore} INTO bad_links (site_id, page_id, raw, reason, found_at)
           SELECT ${select(['site', 'page', 'key', 'reason', 'at'])} ${notDeleted('bad')}${ignored}`,
        ),
      };
    };
    const insertPage = (guard: string) =>
      db.prepare(
        `INSERT INTO pages (site_id, key, dir, fp, url, level, found_on, found_at) SELECT ${select(['site', 'key', 'dir', 'fp', 'url', 'level', 'on', 'at'])} ${guard}${newPage}`,
      );
    const least = pg ? 'least' : 'min';
    const greatest = pg ? 'greatest' : 'max';
    // the keys a refresh found on a page, as one JSON array parameter
    const jsonKeys = pg ? `SELECT json_array_elements_text(?::json)` : `SELECT value FROM json_each(?)`;
    const jsonIds = pg ? `SELECT json_array_elements_text(?::json)::bigint` : `SELECT value FROM json_each(?)`;
    this.s = {
      // The page a pulled URL redirected to is stored whatever: its content was fetched.
      insertPage: insertPage('WHERE true'),
      // The seen-set (see fingerprint.ts): pages_seen answers without reading the table. A page's
      // identity in its site is its fingerprint; this writer, the only one, keeps it unique.
      pageByFp: db.prepare(`SELECT id, level FROM pages WHERE site_id = @site AND dir = @dir AND fp = @fp`),
      // Positional: it runs for every internal link, and binding by name costs a third more.
      // pages_seen covers it (the id is the rowid): [id, level] without reading the table.
      seen: db.prepare(`SELECT id, level FROM pages WHERE site_id = ? AND dir = ? AND fp = ?`).raw(),
      // The link graph (schema 7): each (page, page) pair once; the first link's anchor text.
      edge: db.prepare(`${orIgnore} INTO edges (src, dst, anchor) VALUES (?, ?, ?)${ignored}`),
      // A link found again nearer the start page moves its queued page up (lowest level wins).
      raise: db.prepare(`UPDATE pages SET level = @level, found_on = @on WHERE site_id = @site AND dir = @dir AND fp = @fp AND status = 'queued' AND level > @level`),
      // Every stored key of the path with some query string; pages_query (partial) answers it.
      queryVariants: db
        .prepare(`SELECT count(*) FROM pages WHERE site_id = ? AND ${pg ? 'strpos' : 'instr'}(key, '?') > 0 AND key > ? AND key < ?`)
        .pluck(),
      skip: db.prepare(`UPDATE pages SET status = ?, note = ? WHERE id = ?`),
      // Ordered crawls: a queued page's state, and what a newly fetched page linking to it changes.
      pageState: db.prepare(
        `SELECT id, level, status, cues, coalesce(cash, 0) AS cash, coalesce(inherit, 0) AS inherit,
           coalesce(dist, 0) AS dist, coalesce(inlinks, 0) AS inlinks FROM pages WHERE site_id = ? AND dir = ? AND fp = ?`,
      ),
      updateOrdered: db.prepare(
        `UPDATE pages SET cash = @cash, inherit = @inherit, dist = @dist, inlinks = @inlinks, priority = @priority,
           found_on = CASE WHEN level > @level THEN @on ELSE found_on END, level = ${least}(level, @level) WHERE id = @id`,
      ),
      spend: db.prepare(`UPDATE pages SET cash = 0 WHERE id = ?`),
      // Focused crawls: the pulled page's relevance, and its terms (a resumed crawl rebuilds the topic from them).
      relevance: db.prepare(`UPDATE pages SET relevance = ?, terms = ? WHERE id = ?`),
      giveUp: db.prepare(`UPDATE sites SET unavailable = ? WHERE id = ? AND unavailable IS NULL`),
      setStatus: db.prepare(`UPDATE pages SET status = ? WHERE id = ?`),
      // The page whose content was read: its status, and what a refresh compares (schema 11).
      content: db.prepare(
        `UPDATE pages SET status = ?, level = ${least}(level, ?), fingerprint = ?, text_size = ?, bytes = ?, fetched_at = ?, gone_at = NULL WHERE id = ?`,
      ),
      fetch: db.prepare(
        `INSERT INTO fetches (site_id, page_id, final_url, http_status, content_type, bytes, encoding,
           encoding_source, error, reward, ms, at, retries, note, reward_urls, reward_hosts, reward_pairs,
           content_length, last_modified, expires, etag, cache_control, content_language, title)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${pg ? ' RETURNING seq' : ''}`,
      ),
      hop: db.prepare(`INSERT INTO hops (fetch_seq, n, url, status, location) VALUES (?, ?, ?, ?, ?)`),
      // A refresh re-reads a page (schema 11): the links no longer on it are marked gone, with the
      // last time the page was seen with them; links back on it are live again; new ones are added.
      lastSeen: db.prepare(
        `SELECT nullif(${greatest}(coalesce(fetched_at, ''), coalesce((SELECT at FROM refreshes r WHERE r.page_id = p.id AND r.action = 'keep' AND r.http_status < 400 ORDER BY seq DESC LIMIT 1), '')), '')
           FROM pages p WHERE id = ?`,
      ).pluck(),
      stampEdges: db.prepare(`UPDATE edges SET found_at = (SELECT fetched_at FROM pages WHERE id = @id) WHERE src = @id AND found_at IS NULL`),
      goneEdges: db.prepare(`UPDATE edges SET gone_at = ?, last_seen = ? WHERE src = ? AND gone_at IS NULL AND dst NOT IN (${jsonIds})`),
      backEdges: db.prepare(`UPDATE edges SET gone_at = NULL, last_seen = NULL WHERE src = ? AND gone_at IS NOT NULL AND dst IN (${jsonIds})`),
      newEdge: db.prepare(`${orIgnore} INTO edges (src, dst, anchor, found_at) VALUES (?, ?, ?, ?)${ignored}`),
      goneExternal: db.prepare(`UPDATE external_links SET gone_at = ?, last_seen = ? WHERE page_id = ? AND gone_at IS NULL AND key NOT IN (${jsonKeys})`),
      backExternal: db.prepare(`UPDATE external_links SET gone_at = NULL, last_seen = NULL WHERE page_id = ? AND gone_at IS NOT NULL AND key IN (${jsonKeys})`),
      goneBad: db.prepare(`UPDATE bad_links SET gone_at = ?, last_seen = ? WHERE page_id = ? AND gone_at IS NULL AND raw NOT IN (${jsonKeys})`),
      backBad: db.prepare(`UPDATE bad_links SET gone_at = NULL, last_seen = NULL WHERE page_id = ? AND gone_at IS NOT NULL AND raw IN (${jsonKeys})`),
      gonePage: db.prepare(`UPDATE pages SET status = ?, gone_at = coalesce(gone_at, ?) WHERE id = ?`),
      site: db.prepare(
        `UPDATE sites SET pulls = pulls + 1, reward_sum = reward_sum + ?, reward_max = ${greatest}(reward_max, ?),
           deepest = ${greatest}(coalesce(deepest, -1), ?), unavailable = coalesce(?, unavailable) WHERE id = ?`,
      ),
    };
    this.mode = opts.reward ?? 'urls';
    this.now = opts.now ?? Date.now;
    this.order = opts.order;
    this.known = new KnownExternal(db);
    this.text = opts.indexText ? new TextIndexWriter(db) : null;
    this.plain = links(false);
    this.guarded = opts.allowReadd ? this.plain : links(true);
    this.anyTombstones = db.prepare('SELECT EXISTS (SELECT 1 FROM deleted_links)').pluck();
  }

  /** Mark the page processed, store its links, log the pull and update the site's statistics. */
  commit(r: PullResult): Committed {
    return this.rereadOnFailure(() => this.write(r));
  }

  private rereadOnFailure(f: () => Committed): Committed {
    try {
      return f();
    } catch (err) {
      // The page's savepoint rolled back: what it marked known is not stored. Read it again.
      this.known = new KnownExternal(this.db);
      throw err;
    }
  }

  /**
   * A refresh read a changed page: its links become the page's links now (the ones gone removed,
   * new ones added, the rest untouched); new internal pages are queued. Not a pull: no `fetches`
   * row, the site's statistics stay. `alsoWrite` (the refresh log) runs in the same savepoint.
   */
  replace(r: PullResult, alsoWrite: (h: LinkChanges) => void): Committed {
    return this.rereadOnFailure(() => this.write(r, alsoWrite));
  }

  /** A refresh found the page gone (404/410): marked, with its outgoing links. Returns how many links went. */
  gone(pageId: number, alsoWrite: (h: LinkChanges) => void): number {
    const s = this.s;
    return this.group.write(() => {
      const at = new Date(this.now()).toISOString();
      const prev = s.lastSeen.get(pageId) as string | null;
      s.gonePage.run(GONE, at, pageId);
      s.stampEdges.run({ id: pageId });
      const n = s.goneEdges.run(at, prev, pageId, '[]').changes + s.goneExternal.run(at, prev, pageId, '[]').changes + s.goneBad.run(at, prev, pageId, '[]').changes;
      alsoWrite({ linksAdded: 0, linksGone: n });
      return n;
    });
  }

  /** refresh: a refresh's replace (see replace()), with what it writes alongside. */
  private write(r: PullResult, refresh?: (h: LinkChanges) => void): Committed {
    return this.group.write((): Committed => {
      const s = this.s;
      const { page } = r;
      const siteId = page.siteId;
      const at = new Date(this.now()).toISOString(); // one time for the pull and every link it stored
      const L = this.anyTombstones.get() ? this.guarded : this.plain;
      const print = r.print ?? null;
      // A refresh: when the page was last seen as it was, and its crawl-found edges dated before it is read again.
      const prevSeen = refresh ? (s.lastSeen.get(page.id) as string | null) : null;
      if (refresh) s.stampEdges.run({ id: page.id });
      let linksAdded = 0;
      let linksGone = 0;
      // The page whose content we got: the pulled one, or its in-site redirect target.
      let contentId = page.id;
      let level = page.level;
      if (r.final) {
        const { dir, fp } = fingerprint(r.final.key);
        const target = (s.pageByFp.get({ site: siteId, dir, fp }) as { id: number; level: number } | undefined) ?? {
          id: Number(s.insertPage.run({ site: siteId, key: r.final.key, dir, fp, url: r.final.url, level: page.level, on: page.id, at }).lastInsertRowid),
          level: page.level,
        };
        if (target.id !== page.id) {
          if (refresh) s.stampEdges.run({ id: target.id });
          s.setStatus.run('redirect', page.id);
          if (refresh) linksAdded += s.newEdge.run(page.id, target.id, null, at).changes;
          else s.edge.run(page.id, target.id, null);
          contentId = target.id;
          level = Math.min(target.level, page.level);
        }
      }
      s.content.run(r.status, level, print?.fingerprint ?? null, print?.textSize ?? null, r.bytes, at, contentId);

      const rewards: Rewards = { urls: 0, hosts: 0, pairs: 0 };
      let newUrls = 0;
      let newHosts = 0;
      // Links of an off-site redirect belong to the pulled page; links in content to the content page.
      const externalOn = r.status === 'redirect' ? page.id : contentId;
      if (refresh) {
        // What the pulled page no longer has goes; what it has again is live again; the rest is added below.
        const ext = JSON.stringify(externalOn === page.id ? r.links.external.map((l) => l.key) : []);
        const bad = JSON.stringify(contentId === page.id ? r.links.bad.map((b) => b.raw) : []);
        linksGone += s.goneExternal.run(at, prevSeen, page.id, ext).changes + s.goneBad.run(at, prevSeen, page.id, bad).changes;
        linksAdded += s.backExternal.run(page.id, ext).changes + s.backBad.run(page.id, bad).changes;
      }
      for (const l of r.links.external) {
        const n = this.known.ask(siteId, l.key, l.host);
        if (L.external.run({ site: siteId, page: externalOn, key: l.key, url: l.url, host: l.host, level, anchor: l.anchor, rel: l.rel, tag: l.tag, at }).changes === 0) continue;
        rewards.pairs++;
        if (!n.urlToSite) continue;
        this.known.mark(siteId, n);
        rewards.urls++;
        if (n.urlToStore) newUrls++;
        if (n.hostToSite) rewards.hosts++;
        if (n.hostToStore) newHosts++;
      }
      const reward = rewards[this.mode];
      // A page links most targets many times (menus, footers): one edge per target, written
      // after the loop in multi-row statements (one call per 64 edges, not per edge).
      const linked = new Map<number, string>();
      const edge = (dst: number, anchor: string | undefined) => {
        if (!linked.has(dst)) linked.set(dst, anchor ?? '');
      };
      if (this.order) this.writeOrdered(r, contentId, level, reward, at, L, edge);
      else for (const l of r.links.internal) {
        const { dir, fp } = fingerprint(l.key);
        const seen = s.seen.get(siteId, dir, fp) as [number, number] | undefined;
        if (seen) {
          edge(seen[0], l.anchor);
          // Stored already (most links are): only a shallower level changes anything.
          if (seen[1] > level + 1 && !l.hold) s.raise.run({ site: siteId, dir, fp, level: level + 1, on: contentId });
          continue;
        }
        const row = { site: siteId, key: l.key, dir, fp, url: l.url, level: level + 1, on: contentId, at };
        const hold = l.hold ?? this.queryTrap(siteId, l.key);
        const ins = hold ? L.heldPage.run({ ...row, ...hold }) : L.insertPage.run(row);
        // No row when a user deleted the link (a tombstone): then no edge either. On PostgreSQL
        // also when another worker stored the page first: then the edge goes to its row.
        if (ins.changes > 0) edge(Number(ins.lastInsertRowid), l.anchor);
        else if (this.db.kind === 'pg') this.edgeToRaced(siteId, dir, fp, l.anchor, edge);
      }
      if (refresh) {
        // A page that now redirects in-site keeps only the edge to its target.
        const own = JSON.stringify(contentId !== page.id ? [contentId] : [...linked.keys()]);
        linksGone += s.goneEdges.run(at, prevSeen, page.id, own).changes;
        linksAdded += s.backEdges.run(page.id, own).changes;
        for (const [dst, anchor] of linked) linksAdded += s.newEdge.run(contentId, dst, anchor, at).changes;
      } else this.writeEdges(contentId, linked);
      for (const b of r.links.bad) {
        if (L.bad.run({ site: siteId, page: contentId, key: b.raw, reason: b.reason, at }).changes > 0) linksAdded++;
      }
      if (this.text) {
        // After the pages are stored: a page new with this pull gets its words too.
        for (const l of r.links.internal) {
          if (!l.anchor) continue;
          const { dir, fp } = fingerprint(l.key);
          this.text.anchor(siteId, dir, fp, l.anchor);
        }
        if (r.text) this.text.index(contentId, r.text);
      }

      if (refresh) {
        refresh({ linksAdded: linksAdded + rewards.pairs, linksGone });
        return { seq: 0, reward, rewards, newUrls, newHosts, linksAdded: linksAdded + rewards.pairs, linksGone };
      }
      const f = r.facts;
      const seq = Number(
        s.fetch.run(
          siteId, page.id, r.final?.url ?? null, r.httpStatus, r.contentType, r.bytes, r.encoding,
          r.encodingSource, r.error, reward, Math.round(r.ms), at, r.retries, r.note, rewards.urls, rewards.hosts, rewards.pairs,
          r.contentLength ?? null, f?.lastModified ?? null, f?.expires ?? null, f?.etag ?? null, f?.cacheControl ?? null, f?.contentLanguage ?? null, r.title ?? null,
        ).lastInsertRowid,
      );
      r.hops.forEach((h, n) => s.hop.run(seq, n, h.url, h.status, h.location));
      s.site.run(reward, reward, level, r.unavailable, siteId);
      return { seq, reward, rewards, newUrls, newHosts, linksAdded: 0, linksGone: 0 };
    });
  }

  /**
   * The internal links of a pulled page in an ordered crawl: each distinct target that is new or
   * still queued gets its new state and priority from the order; the page's cash is spent.
   */
  private writeOrdered(
    r: PullResult, contentId: number, level: number, reward: number, at: string, L: PullWriter['plain'],
    edge: (dst: number, anchor: string | undefined) => void,
  ): void {
    const s = this.s;
    const { page } = r;
    const siteId = page.siteId;
    const relevance = this.order!.learn(page, reward, r.terms);
    if (relevance !== null) s.relevance.run(relevance, r.terms ? JSON.stringify(r.terms) : null, page.id);
    type Row = { id: number; level: number; status: string } & OrderState;
    const targets: { l: FoundLinks['internal'][number]; dir: number; fp: bigint; row: Row | undefined }[] = [];
    const seen = new Set<string>();
    for (const l of r.links.internal) {
      if (seen.has(l.key)) continue;
      seen.add(l.key);
      const { dir, fp } = fingerprint(l.key);
      const row = s.pageState.get(siteId, dir, fp) as Row | undefined;
      if (row) edge(row.id, l.anchor);
      if (row ? row.status !== 'queued' || l.hold : false) continue;
      if (!row) {
        const hold = l.hold ?? this.queryTrap(siteId, l.key);
        if (hold) {
          const ins = L.heldPage.run({ site: siteId, key: l.key, dir, fp, url: l.url, level: level + 1, on: contentId, at, ...hold });
          if (ins.changes > 0) edge(Number(ins.lastInsertRowid), l.anchor);
          else if (this.db.kind === 'pg') this.edgeToRaced(siteId, dir, fp, l.anchor, edge);
          continue;
        }
      }
      targets.push({ l, dir, fp, row });
    }
    const scored = this.order!.children(
      page,
      reward,
      relevance,
      targets.map(({ l, row }) => ({ url: l.url, anchor: l.anchor ?? '', cues: l.cues, known: row ?? null })),
    );
    targets.forEach(({ l, dir, fp, row }, i) => {
      const { state, priority } = scored[i]!;
      const { cash, inherit, dist, inlinks } = state;
      if (row) s.updateOrdered.run({ cash, inherit, dist, inlinks, priority, level: level + 1, on: contentId, id: row.id });
      else {
        const ins = L.insertOrdered.run({
          site: siteId, key: l.key, dir, fp, url: l.url, level: level + 1, on: contentId, at,
          priority, anchor: l.anchor ?? null, ...state, cues: state.cues || null,
        });
        if (ins.changes > 0) edge(Number(ins.lastInsertRowid), l.anchor);
        else if (this.db.kind === 'pg') this.edgeToRaced(siteId, dir, fp, l.anchor, edge);
      }
    });
    s.spend.run(page.id);
  }

  /** A page another worker inserted between our look-up and our insert: link to its row. */
  private edgeToRaced(siteId: number, dir: number, fp: bigint, anchor: string | undefined, edge: (dst: number, anchor: string | undefined) => void): void {
    const row = this.s.seen.get(siteId, dir, fp) as [number, number] | undefined;
    if (row) edge(row[0], anchor);
  }

  private edgeStatements = new Map<number, Statement>();

  /** A page's edges, 64 rows per statement: per-row calls were most of what the edges cost. */
  private writeEdges(src: number, linked: Map<number, string>): void {
    const EDGE_BATCH = 64;
    const args: (number | string)[] = [];
    const flush = () => {
      const rows = args.length / 3;
      let st = this.edgeStatements.get(rows);
      if (!st) {
        st = this.db.prepare(`${this.db.kind === 'pg' ? 'INSERT' : 'INSERT OR IGNORE'} INTO edges (src, dst, anchor) VALUES ${Array(rows).fill('(?, ?, ?)').join(', ')}${this.db.kind === 'pg' ? ' ON CONFLICT DO NOTHING' : ''}`);
        this.edgeStatements.set(rows, st);
      }
      st.run(args);
      args.length = 0;
    };
    for (const [dst, anchor] of linked) {
      args.push(src, dst, anchor);
      if (args.length === EDGE_BATCH * 3) flush();
    }
    if (args.length) flush();
  }

  /** A page that will not be fetched (robots.txt, a trap): no pull, no budget spent. */
  skip(page: FrontierPage, status: SkipStatus, note: string): void {
    this.s.skip.run(status, note, page.id);
  }

  /** Stop crawling a site for good, with the reason `status` shows. */
  giveUp(siteId: number, reason: string): void {
    this.s.giveUp.run(reason, siteId);
  }

  /** The 'query-variants' trap when a NEW key would exceed the cap of query strings for its path. */
  private queryTrap(siteId: number, key: string): Hold | undefined {
    const q = key.indexOf('?');
    if (q < 0 || this.maxQueryVariants === Infinity) return undefined;
    const path = key.slice(0, q + 1);
    const n = this.s.queryVariants.get(siteId, path, path + '\uffff') as number;
    return n >= this.maxQueryVariants ? { status: 'trap', note: 'query-variants' } : undefined;
  }
}
