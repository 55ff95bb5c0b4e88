import type { Rewards } from '../schedule/sites/reward.js';
import { sharedByWorkers, type Db, type RunResult, type Statement } from '../db/db.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import { fingerprint } from '../url/key-hash.js';
import { GroupCommit } from '../db/group-commit.js';
import { retryWhole } from '../db/lost-connection.js';
import { KnownExternal, type Newness } from './known-external.js';
import type { FoundLinks, Hold } from '../page/found-links.js';
import { queryVariantFate, variantPath } from '../page/link-fate.js';
import { GONE, type Committed, type LinkChanges, type PullResult, type SkipStatus } from '../pull/pull-record.js';
import type { LinkOrder } from '../schedule/link-order.js';
import { takeLinks, type IntakeStore } from '../schedule/link-intake.js';
import { takeContent, type ContentStore } from '../schedule/content-intake.js';
import { takeExternal, type ExternalFound, type ExternalStore } from '../schedule/external-intake.js';
import { TextIndexWriter } from './text-index.js';
import { QueuedLevels } from './queued-levels.js';
import { queuedPages, rescoreQueued } from './priorities.js';
import type { SitemapFound } from '../pull/sitemap-found.js';
import { sitemapStatements, storeSitemapPages, type SitemapStatements } from './sitemap-pages.js';
import { EDGE_BATCH, edgeRows, linkStatements, pullStatements, type LinkStatements, type PullStatements } from './pull-statements.js';

export interface PullWriterOptions {
  /** Distinct query strings stored per path and site; more are traps (link-fate.ts queryVariantFate). */
  maxQueryVariants?: number;
  /** Store links again even when a user deleted them (`beebot links delete`) before. Default false. */
  allowReadd?: boolean;
  /** Where pages are committed; default: a group of its own. */
  group?: GroupCommit;
  /** Which of the three rewards the pull's `reward` (and the site's sums) counts. Default urls. */
  reward?: keyof Rewards;
  /** Ordered crawls (src/schedule/links): how the pulled page's links are scored. Without it pages get no priority (breadth-first). */
  order?: LinkOrder;
  /** Keep pages' text and the anchor texts of links to them in the full-text index (setting index-text). */
  indexText?: boolean;
  /** The clock the stored times come from (ms since the epoch); default the real one. */
  now?: () => number;
  /**
   * The crawl's max-level. With an order that does not track known pages (value), a queued page
   * found nearer the start waits beside the page until it is fetched (queued-levels.ts).
   */
  maxLevel?: number;
}


/** A page's write so far, handed from step to step (see write). */
interface PageWrite {
  r: PullResult;
  siteId: number;
  /** one time for the pull and every link it stored */
  at: string;
  /** the link statements in force: guarded while any link is tombstoned */
  L: LinkStatements;
  /** a refresh's re-read (replace), not a pull */
  refresh: boolean;
  /** a refresh: when the page was last seen as it was */
  prevSeen: string | null;
  /** the page whose content was read: the pulled one, or its in-site redirect target */
  contentId: number;
  level: number;
  /** the page's edges, one per target with the first link's anchor text, written after its links */
  linked: Map<number, string>;
  /** a refresh's counts of links back or new, and gone */
  linksAdded: number;
  linksGone: number;
  /** query strings per path (up to '?') of the site: stored before this page, and new with it */
  variants: Map<string, number>;
}

type InternalLink = FoundLinks['internal'][number];
type ExternalLink = FoundLinks['external'][number];
/** A stored page as the link intake finds it: id and level, and with its state also its status and the order's columns (pageState). */
type Stored = [id: number, level: number, status?: string, cues?: string | null, cash?: number, inherit?: number, dist?: number, inlinks?: number];

/** The edge to `dst`, unless the page links it already (the first link's anchor text stays). */
const addEdge = (linked: Map<number, string>, dst: number, anchor: string | undefined): void => {
  if (!linked.has(dst)) linked.set(dst, anchor ?? '');
};

/** Writes pulls through prepared statements (pull-statements.ts); one instance per crawl. */
export class PullWriter {
  private s: PullStatements;
  private sitemaps: SitemapStatements | null = null;

  private maxQueryVariants: number;
  /** Link statements with and without the tombstone check: most databases have no tombstones. */
  private plain: LinkStatements;
  private guarded: LinkStatements;
  private mode: keyof Rewards;
  private order: LinkOrder | undefined;
  private now: () => number;
  /** Another worker may insert a page between our look-up and our insert (PostgreSQL). */
  private raced: boolean;
  /** The external URLs and hosts the store holds, per site and in all (see known-external.ts). */
  known: KnownExternal;
  /** The full-text index, when the crawl keeps one. */
  readonly text: TextIndexWriter | null;
  private queuedLevels: QueuedLevels;
  /** the max-level under which queued pages' nearer levels wait (queued-levels.ts), or null: they move at once */
  private nearerUnder: number | null;

  readonly group: GroupCommit;

  constructor(private db: Db, opts: PullWriterOptions = {}) {
    // Shared by workers: a transaction per page. Other workers wait on the rows a group holds (the
    // site's statistics, new pages), and a commit there costs a round trip, not an fsync per group.
    this.raced = sharedByWorkers(db);
    this.group = opts.group ?? new GroupCommit(db, this.raced ? 1 : 64);
    this.maxQueryVariants = opts.maxQueryVariants ?? Infinity;
    this.s = pullStatements(db);
    this.mode = opts.reward ?? 'urls';
    this.now = opts.now ?? Date.now;
    this.order = opts.order;
    this.queuedLevels = new QueuedLevels(db, { remember: !this.raced });
    this.nearerUnder = opts.order && !opts.order.tracksKnown && opts.maxLevel !== undefined ? opts.maxLevel : null;
    this.known = new KnownExternal(db);
    this.text = opts.indexText ? new TextIndexWriter(db) : null;
    this.plain = linkStatements(db, false);
    this.guarded = opts.allowReadd ? this.plain : linkStatements(db, true);
  }

  /** Mark the page processed, store its links, log the pull and update the site's statistics. */
  commit(r: PullResult): Committed {
    return this.rereadOnFailure(() => this.write(r));
  }

  /** A page's write, run again whole when the connection was lost under it (PostgreSQL). */
  private rereadOnFailure(f: () => Committed): Committed {
    return retryWhole(() => {
      try {
        return f();
      } catch (err) {
        // The page's savepoint rolled back: what it marked known is not stored. Read it again.
        this.known = new KnownExternal(this.db);
        this.queuedLevels.forgetAll();
        throw err;
      }
    });
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
    return retryWhole(() => this.group.write(() => {
      const at = new Date(this.now()).toISOString();
      const prev = s.lastSeen.get(pageId) as string | null;
      s.gonePage.run(GONE, at, pageId);
      s.stampEdges.run({ id: pageId });
      const n = s.goneEdges.run(at, prev, pageId, '[]').changes + s.goneExternal.run(at, prev, pageId, '[]').changes + s.goneBad.run(at, prev, pageId, '[]').changes;
      alsoWrite({ linksAdded: 0, linksGone: n });
      return n;
    }));
  }

  /**
   * One page, in one savepoint of the group: its content, its external links (and what they are
   * new to), its internal links (new pages queued), its edges and bad links, its text; then the
   * pull's log row and the site's statistics, or (a refresh: `refresh` given) the refresh log.
   */
  private write(r: PullResult, refresh?: (h: LinkChanges) => void): Committed {
    return this.group.write((): Committed => {
      const w = this.begin(r, refresh !== undefined);
      this.storeContent(w);
      if (w.refresh) this.reviseLinks(w);
      const found = this.storeExternal(w);
      const reward = found.rewards[this.mode];
      this.storeInternal(w, reward);
      this.storeEdges(w);
      this.storeBad(w);
      if (this.text) this.indexText(w, this.text);
      if (refresh) {
        const linksAdded = w.linksAdded + found.rewards.pairs;
        refresh({ linksAdded, linksGone: w.linksGone });
        return { seq: 0, reward, rewards: found.rewards, newUrls: found.newUrls, newHosts: found.newHosts, linksAdded, linksGone: w.linksGone };
      }
      return { seq: this.logPull(w, found.rewards, reward), reward, ...found, linksAdded: 0, linksGone: 0 };
    });
  }

  private begin(r: PullResult, refresh: boolean): PageWrite {
    const { page } = r;
    const w: PageWrite = {
      r, siteId: page.siteId, at: new Date(this.now()).toISOString(), L: this.s.anyTombstones.get() ? this.guarded : this.plain,
      refresh, prevSeen: null, contentId: page.id, level: page.level, linked: new Map(), linksAdded: 0, linksGone: 0, variants: new Map(),
    };
    if (refresh) {
      // When the page was last seen as it was, and its crawl-found edges dated before it is read again.
      w.prevSeen = this.s.lastSeen.get(page.id) as string | null;
      this.s.stampEdges.run({ id: page.id });
    }
    return w;
  }

  /** The page whose content was read: the pulled one, or its in-site redirect target (schedule/content-intake.ts). */
  private storeContent(w: PageWrite): void {
    this.queuedLevels.settle(w.r.page.id);
    takeContent(this.content, w, w.r.page.level);
    // Read back: a link found meanwhile (another worker, this one's other sites) may have raised the
    // page while it was in flight, and its links are one level below where it is now.
    w.level = this.s.levelOf.get(w.contentId) as number;
  }

  /** The store under the content step: stored pages by id, through the prepared statements. */
  private content: ContentStore<number, PageWrite> = {
    target: (w, level) => {
      const { final, page } = w.r;
      if (!final) return undefined;
      const s = this.s;
      const { dir, fp } = fingerprint(final.key);
      const found = s.pageByFp.get({ site: w.siteId, dir, fp }) as { id: number } | undefined;
      const id = found?.id ?? Number(s.insertPage.run({ site: w.siteId, key: final.key, dir, fp, url: final.url, level, on: page.id, at: w.at }).lastInsertRowid);
      if (id === page.id) return undefined;
      this.queuedLevels.settle(id);
      return id;
    },
    levelOf: (_w, id) => this.s.levelOf.get(id) as number,
    redirected: (w, id) => {
      const s = this.s;
      const from = w.r.page.id;
      if (w.refresh) s.stampEdges.run({ id });
      s.setStatus.run('redirect', from);
      if (w.refresh) w.linksAdded += s.newEdge.run(from, id, null, w.at).changes;
      else s.edge.run(from, id, null);
    },
    lower: (w, id, level) => this.lower(id, level, w.r.page.id),
    content: (w, id, level) => {
      if (id !== undefined) w.contentId = id;
      const { r } = w;
      const print = r.print ?? null;
      this.s.content.run(r.status, level, print?.fingerprint ?? null, print?.textSize ?? null, r.bytes, w.at, w.contentId);
    },
  };

  /**
   * Levels stay breadth-first levels whatever order pages were fetched in (concurrency, a parent
   * in flight or fetched again after a failure): page `id` found at `level` from `on` moves up,
   * and so do, one level below it, the external links it holds and the pages it links, as far
   * as they go (a queued page moved within max-level is fetched in its turn).
   */
  private lower(id: number, level: number, on: number): void {
    const s = this.s;
    const todo: [number, number, number][] = [[id, level, on]];
    for (let next; (next = todo.pop()); ) {
      const [page, at, from] = next;
      if (this.nearerUnder !== null && this.queuedLevels.keep(page, at, from, this.nearerUnder)) continue;
      const status = s.lower.get(at, from, page, at) as string | undefined;
      if (status === undefined || status === 'queued') continue; // not lowered, or nothing of it stored yet
      s.lowerExternal.run(at, page, at);
      for (const [child, childLevel] of s.deeperChildren.all(page) as [number, number][]) todo.push([child, childLevel, page]);
    }
  }

  /** Links of an off-site redirect belong to the pulled page; links in content to the content page. */
  private externalOn(w: PageWrite): number {
    return w.r.status === 'redirect' ? w.r.page.id : w.contentId;
  }

  /** A refresh: what the page no longer has goes, what it has again is live again (the rest is added by the steps after). */
  private reviseLinks(w: PageWrite): void {
    const s = this.s;
    const { r, at, prevSeen } = w;
    const pageId = r.page.id;
    const ext = JSON.stringify(this.externalOn(w) === pageId ? r.links.external.map((l) => l.key) : []);
    const bad = JSON.stringify(w.contentId === pageId ? r.links.bad.map((b) => b.raw) : []);
    w.linksGone += s.goneExternal.run(at, prevSeen, pageId, ext).changes + s.goneBad.run(at, prevSeen, pageId, bad).changes;
    w.linksAdded += s.backExternal.run(pageId, ext).changes + s.backBad.run(pageId, bad).changes;
  }

  /** The external links: each stored once per page, and counted by what it is new to (schedule/external-intake.ts). */
  private storeExternal(w: PageWrite): ExternalFound {
    return takeExternal(this.external, w, w.r.links.external);
  }

  /** The store under the external count: the page's pairs through the prepared statement, what each is new to in memory. */
  private external: ExternalStore<ExternalLink, Newness, PageWrite> = {
    store: (w, l) => w.L.external.run({ site: w.siteId, page: this.externalOn(w), key: l.key, url: l.url, host: l.host, level: w.level, anchor: l.anchor, rel: l.rel, tag: l.tag, at: w.at }).changes > 0,
    ask: (w, l) => this.known.ask(w.siteId, l.key, l.host),
    mark: (w, n) => this.known.mark(w.siteId, n),
  };

  /**
   * A page inserted for a link gets its edge. No row when a user deleted the link (a tombstone):
   * then no edge either. Shared by workers also when another worker stored the page between our
   * look-up and our insert: then the edge goes to its row.
   */
  private linkNew(w: PageWrite, ins: RunResult, dir: number, fp: bigint, anchor: string | undefined): void {
    if (ins.changes > 0) addEdge(w.linked, Number(ins.lastInsertRowid), anchor);
    else if (this.raced) {
      const row = this.s.seen.get(w.siteId, dir, fp) as [number, number] | undefined;
      if (row) addEdge(w.linked, row[0], anchor);
    }
  }

  /**
   * The pulled page's internal links (schedule/link-intake.ts decides what each does); in an
   * ordered crawl its relevance is stored and its cash spent.
   */
  private storeInternal(w: PageWrite, reward: number): void {
    const { page } = w.r;
    const order = this.order;
    const relevance = takeLinks(this.intake, w, w.r.links.internal, w.level, order ? { order, page, reward, terms: w.r.terms } : null);
    if (relevance !== null) this.s.relevance.run(relevance, w.r.terms ? JSON.stringify(w.r.terms) : null, page.id);
    if (order) this.s.spend.run(page.id);
  }

  /** The store under the link intake: what it reads and writes of a page's links, through the prepared statements. */
  private intake: IntakeStore<InternalLink, Hold, Stored, PageWrite> = {
    keyOf: (l) => l.key,
    heldBy: (l) => l.hold,
    find: (w, l, withState) => {
      const { dir, fp } = fingerprint(l.key);
      return (withState ? this.s.pageState : this.s.seen).get(w.siteId, dir, fp) as Stored | undefined;
    },
    levelOf: (p) => p[1],
    queued: (p) => p[2] === 'queued',
    edge: (w, p, l) => addEdge(w.linked, p[0], l.anchor),
    lower: (w, p, level) => this.lower(p[0], level, w.contentId),
    // this.lower keeps a queued page's nearer level beside it under such an order (nearerUnder)
    nearer: (w, p, level) => this.lower(p[0], level, w.contentId),
    trap: (w, l) => this.queryTrap(w, l.key),
    hold: (w, l, hold, level) => {
      const { dir, fp } = fingerprint(l.key);
      const row = { site: w.siteId, key: l.key, dir, fp, url: l.url, level, on: w.contentId, at: w.at, ...hold };
      this.linkNew(w, w.L.heldPage.run(row), dir, fp, l.anchor);
    },
    insert: (w, l, level, scored) => {
      const { dir, fp } = fingerprint(l.key);
      const { siteId: site, contentId: on, at } = w;
      const ins = scored
        ? w.L.insertOrdered.run({
            site, key: l.key, dir, fp, url: l.url, level, on, at, priority: scored.priority, anchor: l.anchor ?? null, ...scored.state, cues: scored.state.cues || null,
          })
        : w.L.insertPage.run({ site, key: l.key, dir, fp, url: l.url, level, on, at });
      this.linkNew(w, ins, dir, fp, l.anchor);
    },
    asked: (_w, l, p) => ({
      url: l.url, anchor: l.anchor ?? '', cues: l.cues,
      known: p ? { cues: p[3] as string, cash: p[4]!, inherit: p[5]!, dist: p[6]!, inlinks: p[7]! } : null,
    }),
    update: (w, p, level, { state, priority }) => {
      const { cash, inherit, dist, inlinks } = state;
      this.s.updateOrdered.run({ cash, inherit, dist, inlinks, priority, level, on: w.contentId, id: p[0] });
    },
    queuedPages: (w, atMost) => queuedPages(this.db, w.siteId, atMost),
    rescore: (w, prioritize, which) => rescoreQueued(this.db, w.siteId, prioritize, which),
  };

  /** The page's edges: a pull writes them in batches; a refresh also marks the ones gone and back. */
  private storeEdges(w: PageWrite): void {
    if (!w.refresh) return this.writeEdges(w.contentId, w.linked);
    const s = this.s;
    const pageId = w.r.page.id;
    // A page that now redirects in-site keeps only the edge to its target.
    const own = JSON.stringify(w.contentId !== pageId ? [w.contentId] : [...w.linked.keys()]);
    w.linksGone += s.goneEdges.run(w.at, w.prevSeen, pageId, own).changes;
    w.linksAdded += s.backEdges.run(pageId, own).changes;
    for (const [dst, anchor] of w.linked) w.linksAdded += s.newEdge.run(w.contentId, dst, anchor, w.at).changes;
  }

  private edgeStatements = new Map<number, Statement>();

  /**
   * A page links most targets many times (menus, footers): one edge per target, written in
   * multi-row statements (one call per EDGE_BATCH edges, not per edge).
   */
  private writeEdges(src: number, linked: Map<number, string>): void {
    const args: (number | string)[] = [];
    const flush = () => {
      const rows = args.length / 3;
      let st = this.edgeStatements.get(rows);
      if (!st) this.edgeStatements.set(rows, (st = edgeRows(this.db, rows)));
      st.run(args);
      args.length = 0;
    };
    for (const [dst, anchor] of linked) {
      args.push(src, dst, anchor);
      if (args.length === EDGE_BATCH * 3) flush();
    }
    if (args.length) flush();
  }

  private storeBad(w: PageWrite): void {
    for (const b of w.r.links.bad) {
      if (w.L.bad.run({ site: w.siteId, page: w.contentId, key: b.raw, reason: b.reason, at: w.at }).changes > 0) w.linksAdded++;
    }
  }

  /** After the pages are stored: a page new with this pull gets its words too. */
  private indexText(w: PageWrite, text: TextIndexWriter): void {
    for (const l of w.r.links.internal) {
      if (!l.anchor) continue;
      const { dir, fp } = fingerprint(l.key);
      text.anchor(w.siteId, dir, fp, l.anchor);
    }
    if (w.r.text) text.index(w.contentId, w.r.text);
  }

  /** The pull's log row (fetches, its redirect hops) and the site's statistics; returns the pull's seq. */
  private logPull(w: PageWrite, rewards: Rewards, reward: number): number {
    const s = this.s;
    const { r, siteId } = w;
    const f = r.facts;
    const seq = Number(
      s.fetch.run(
        siteId, r.page.id, r.final?.url ?? null, r.httpStatus, r.contentType, r.bytes, r.encoding,
        r.encodingSource, r.error, reward, Math.round(r.ms), w.at, r.retries, r.note, rewards.urls, rewards.hosts, rewards.pairs,
        r.contentLength ?? null, f?.lastModified ?? null, f?.expires ?? null, f?.etag ?? null, f?.cacheControl ?? null, f?.contentLanguage ?? null, r.title ?? null,
      ).lastInsertRowid,
    );
    r.hops.forEach((h, n) => s.hop.run(seq, n, h.url, h.status, h.location));
    s.site.run(reward, reward, w.level, r.unavailable, r.unavailable === null ? null : this.now(), r.siteFailures ?? null, siteId);
    return seq;
  }

  /** A page that will not be fetched (robots.txt, a trap): no pull, no budget spent. */
  skip(page: FrontierPage, status: SkipStatus, note: string): void {
    this.s.skip.run(status, note, page.id);
    this.queuedLevels.forget(page.id);
  }

  /** A site's sitemap pages, queued (sitemap-pages.ts), and its sitemaps marked read with what they gave; returns how many pages were new. */
  sitemapPages(siteId: number, found: SitemapFound): number {
    this.sitemaps ??= sitemapStatements(this.db);
    const st = this.sitemaps;
    return this.group.write(() => storeSitemapPages(st, siteId, found, new Date(this.now()).toISOString()));
  }

  /** Stop crawling a site, with the reason `status` shows (a later run tries it again: sites.ts reopenSites). */
  giveUp(siteId: number, reason: string): void {
    this.s.giveUp.run(reason, this.now(), siteId);
  }

  /** A page that failed for now: it stays queued, asked again from `retryAt` (epoch ms); the site's failures in a row. */
  defer(page: FrontierPage, d: { attempts: number; firstFailedAt: number; retryAt: number }, siteFailures: number): void {
    this.group.write(() => {
      this.s.defer.run(d.attempts, d.firstFailedAt, d.retryAt, page.id);
      this.s.failures.run(siteFailures, page.siteId);
    });
  }

  /**
   * The site's queued pages at `origin` (URL.origin) wait until `retryAt` (epoch ms): the origin is
   * held (net/host-holds.ts). Not attempts: none of them was asked.
   */
  putOffOrigin(siteId: number, origin: string, retryAt: number): void {
    const o = origin.replace(/[\\%_]/g, (c) => `\\${c}`);
    this.group.write(() => this.s.putOff.run(retryAt, siteId, retryAt, `${o}/%`));
  }

  /**
   * A NEW key's fate under the cap of query strings for its path (link-fate.ts), from the count
   * kept here. Each new key counts at once, in `w.variants`: an ordered crawl stores a page's new
   * links only after scoring them all, so the stored count alone would let every link of the page through.
   */
  private queryTrap(w: PageWrite, key: string): Hold | undefined {
    const path = this.maxQueryVariants === Infinity ? null : variantPath(key);
    if (path === null) return undefined;
    const n = w.variants.get(path) ?? (this.s.queryVariants.get(w.siteId, path, path + '\uffff') as number);
    w.variants.set(path, n + 1);
    return queryVariantFate(n, this.maxQueryVariants);
  }
}
