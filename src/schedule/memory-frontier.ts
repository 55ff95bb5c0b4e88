import type { FrontierPage, OrderState } from './queued-page.js';
import { rescores, type Prioritize, type Rescore } from './links/rescore.js';
import { START } from './links/priority.js';
import { PageHeap, type HeapItem } from './page-heap.js';
import type { FoundPage, PageFrontier } from './page-frontier.js';

/** A queued page as it enters the frontier: found by a pull, or read back from the store on a resume. */
export interface QueuedPage extends FoundPage {
  /** a nearer level found while it was queued (it becomes the page's level when it is fetched) */
  nearer?: number | null;
  attempts?: number;
  firstFailedAt?: number | null;
  /** it failed for now, or its host is held: not asked before this time (epoch ms) */
  retryAt?: number | null;
}

interface Entry extends HeapItem {
  id: number;
  siteId: number;
  url: string;
  level: number;
  nearer: number | null;
  priority: number | null;
  anchor: string | null;
  cues: string | null;
  cash: number | null;
  inherit: number | null;
  dist: number | null;
  inlinks: number | null;
  /** undefined: not known (the replay's pages never fail) */
  attempts: number | undefined;
  firstFailedAt: number | null | undefined;
  retryAt: number | null;
}

interface SiteQueue {
  all: Map<number, Entry>;
  /** the pages that may be asked now: eligible (level <= max-level; ordered: scored) and not waiting */
  heap: PageHeap<Entry>;
  /** the pages with a retry time (few) */
  waiting: Set<Entry>;
}

/** breadth-first: level, then discovery order (id) */
const byLevel = (a: Entry, b: Entry): boolean => a.level < b.level || (a.level === b.level && a.id < b.id);
/** ordered: priority first (the level the page was queued with breaks ties, then discovery) */
const byPriority = (a: Entry, b: Entry): boolean => a.priority! > b.priority! || (a.priority === b.priority && byLevel(a, b));

/**
 * The crawl's queued pages in memory, per site, in the frontier's order: breadth-first (level, id)
 * or, ordered, (priority desc, level, id) among pages with a priority. Pages beyond max-level wait
 * outside the order until a nearer link brings them within it; a page that failed for now waits
 * until its retry time. A queued page found nearer in an ordered crawl keeps the level it was
 * queued with (which orders it) and the nearer one beside it, which becomes its level when it is
 * taken. Plain data, no I/O: the store keeps the record, and a resumed crawl adds its queued
 * pages back (in any order: the order is by key alone). The store's queue keeps the same order
 * (page-frontier.ts: one contract, tested against both).
 */
export class MemoryFrontier implements PageFrontier {
  private sites = new Map<number, SiteQueue>();
  private byId = new Map<number, Entry>();
  private before: (a: Entry, b: Entry) => boolean;

  constructor(
    private ordered: boolean,
    readonly maxLevel: number,
  ) {
    this.before = ordered ? byPriority : byLevel;
  }

  private site(siteId: number): SiteQueue {
    let q = this.sites.get(siteId);
    if (!q) this.sites.set(siteId, (q = { all: new Map(), heap: new PageHeap(this.before), waiting: new Set() }));
    return q;
  }

  /** A page queued (once: a page already here keeps its entry). */
  add(p: QueuedPage): void {
    if (this.byId.has(p.id)) return;
    const e: Entry = {
      pos: -1, id: p.id, siteId: p.siteId, url: p.url, level: p.level, nearer: p.nearer ?? null, priority: p.priority ?? null, anchor: p.anchor ?? null,
      cues: p.cues ?? null, cash: p.cash ?? null, inherit: p.inherit ?? null, dist: p.dist ?? null, inlinks: p.inlinks ?? null,
      // every field set here, in one order: entries share one shape, their fields in the object (a million queued pages)
      attempts: p.attempts, firstFailedAt: p.firstFailedAt, retryAt: p.retryAt ?? null,
    };
    if (e.nearer !== null && e.nearer >= e.level) e.nearer = null;
    this.byId.set(e.id, e);
    const q = this.site(e.siteId);
    q.all.set(e.id, e);
    this.place(q, e);
  }

  /** Whether the page is queued here. */
  has(id: number): boolean {
    return this.byId.has(id);
  }

  /** The site's queued pages (beyond max-level and waiting ones too). */
  queued(siteId: number): number {
    return this.sites.get(siteId)?.all.size ?? 0;
  }

  /** The page's level (with a nearer one found meanwhile), or undefined: not queued. */
  levelOf(id: number): number | undefined {
    const e = this.byId.get(id);
    return e && levelNow(e);
  }

  /** What the order keeps with a queued page, as the store reads it back (coalesced), or undefined. */
  stateOf(id: number): OrderState | undefined {
    const e = this.byId.get(id);
    return e && stateOf(e);
  }

  /** What an order that tracks known pages reads of a queued page found again (as the store's row: no cash is 0), or undefined. */
  known(id: number): OrderState | undefined {
    const e = this.byId.get(id);
    return e && { cues: e.cues as string, cash: e.cash ?? 0, inherit: e.inherit ?? 0, dist: e.dist ?? 0, inlinks: e.inlinks ?? 0 };
  }

  /** The page found at `level` (breadth-first, or an order that tracks known pages): it moves up at once. */
  raise(id: number, level: number): void {
    const e = this.byId.get(id);
    if (!e || e.level <= level) return;
    e.level = level;
    this.place(this.sites.get(e.siteId)!, e);
  }

  /**
   * The page found at `level` in an order that does not track known pages: the nearer level waits
   * beside it, unless it brings the page within max-level (then it moves up at once).
   */
  nearer(id: number, level: number): void {
    const e = this.byId.get(id);
    if (!e || e.level <= level) return;
    if (e.level > this.maxLevel && level <= this.maxLevel) this.raise(id, level);
    else e.nearer = Math.min(e.nearer ?? level, level);
  }

  /** The order's new judgment of a queued page found again at `level`. */
  update(id: number, priority: number, state: OrderState, level: number): void {
    const e = this.byId.get(id);
    if (!e) return;
    e.priority = priority;
    e.cash = state.cash;
    e.inherit = state.inherit;
    e.dist = state.dist;
    e.inlinks = state.inlinks;
    e.level = Math.min(e.level, level);
    this.place(this.sites.get(e.siteId)!, e);
  }

  /** The page leaves the queue (taken to be fetched, skipped): its level then, with the nearer one, or undefined if it was not queued. */
  take(id: number): number | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    const q = this.sites.get(e.siteId)!;
    if (e.pos >= 0) q.heap.remove(e);
    q.waiting.delete(e);
    q.all.delete(id);
    this.byId.delete(id);
    return levelNow(e);
  }

  /** The site's next page (the frontier's order, due by `now`), or undefined: none up to max-level. */
  nextPage(siteId: number, now: number = Date.now()): FrontierPage | undefined {
    const q = this.sites.get(siteId);
    if (!q) return undefined;
    for (const e of q.waiting) {
      if (e.retryAt! > now) continue;
      e.retryAt = null;
      q.waiting.delete(e);
      this.place(q, e);
    }
    const e = q.heap.peek();
    if (!e) return undefined;
    const page: FrontierPage = { id: e.id, siteId, url: e.url, level: levelNow(e) };
    if (e.attempts !== undefined) page.attempts = e.attempts;
    if (e.firstFailedAt !== undefined) page.firstFailedAt = e.firstFailedAt;
    if (!this.ordered) return page;
    return { ...page, priority: e.priority!, anchor: e.anchor, state: stateOf(e) };
  }

  /** When the site's soonest waiting page within the order may be asked (epoch ms), or null: none waits. */
  soonestRetry(siteId: number): number | null {
    let soonest: number | null = null;
    for (const e of this.sites.get(siteId)?.waiting ?? []) {
      if (this.eligible(e) && (soonest === null || e.retryAt! < soonest)) soonest = e.retryAt;
    }
    return soonest;
  }

  /** The page failed for now: it waits until `retryAt`. */
  defer(id: number, attempts: number, firstFailedAt: number, retryAt: number): void {
    const e = this.byId.get(id);
    if (!e) return;
    e.attempts = attempts;
    e.firstFailedAt = firstFailedAt;
    this.wait(e, retryAt);
  }

  /** The site's queued pages at `origin` (URL.origin) wait until `retryAt` (their host is held). */
  putOff(siteId: number, origin: string, retryAt: number): void {
    const prefix = `${origin}/`;
    for (const e of this.sites.get(siteId)?.all.values() ?? []) {
      if (e.url.startsWith(prefix) && (e.retryAt === null || e.retryAt < retryAt)) this.wait(e, retryAt);
    }
  }

  /**
   * Score the site's queued pages again, those `which` picks (links/rescore.ts); start pages come
   * first whatever their score.
   */
  rescore(siteId: number, prioritize: Prioritize, which: Rescore = 'all', changed?: (id: number, priority: number) => void): void {
    const q = this.sites.get(siteId);
    if (!q) return;
    for (const e of q.all.values()) {
      if (!rescores(which, e.priority, e.cues)) continue;
      const p = e.level === 0 ? START : prioritize(siteId, e.url, e.anchor ?? '', stateOf(e));
      if (p === e.priority) continue;
      e.priority = p;
      this.place(q, e);
      changed?.(e.id, p);
    }
  }

  private wait(e: Entry, retryAt: number): void {
    const q = this.sites.get(e.siteId)!;
    e.retryAt = retryAt;
    if (e.pos >= 0) q.heap.remove(e);
    q.waiting.add(e);
  }

  private eligible(e: Entry): boolean {
    return e.level <= this.maxLevel && (!this.ordered || e.priority !== null);
  }

  /** Put the entry where its key and standing say: in the order, or out of it. */
  private place(q: SiteQueue, e: Entry): void {
    if (e.retryAt !== null) {
      q.waiting.add(e);
      return;
    }
    const inOrder = this.eligible(e);
    if (e.pos >= 0) {
      if (inOrder) q.heap.moved(e);
      else q.heap.remove(e);
    } else if (inOrder) q.heap.push(e);
  }
}

/** A page's level as its fetch reads it: with the nearer level that waited beside it. */
const levelNow = (e: Entry): number => (e.nearer === null ? e.level : Math.min(e.level, e.nearer));

/** The order's columns as the store reads them (coalesced: a start page holds the site's first cash). */
const stateOf = (e: Entry): OrderState => ({
  cues: e.cues ?? '', cash: e.cash ?? (e.level === 0 ? 1 : 0), inherit: e.inherit ?? 0, dist: e.dist ?? 0, inlinks: e.inlinks ?? 0,
});
