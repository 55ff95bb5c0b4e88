import type { FrontierPage, OrderState } from './queued-page.js';
import type { Prioritize, Rescore } from './links/rescore.js';

/** A page as a pull finds it: its site, its level, and in an ordered crawl its priority (null: not scored yet) and what the order keeps with it. */
export interface FoundPage {
  /** the store's id: pages enter in discovery order, each id above those before it */
  id: number;
  siteId: number;
  url: string;
  level: number;
  priority?: number | null;
  anchor?: string | null;
  cues?: string | null;
  cash?: number | null;
  inherit?: number | null;
  dist?: number | null;
  inlinks?: number | null;
}

/**
 * The crawl's queued pages, per site, for one max-level: the operations the crawl and the replay
 * need of them. Two implementations keep the same order: in memory (memory-frontier.ts: the
 * replay) and in the store (store/stored-frontier.ts over the live crawl's SQL queue, SQLite or
 * PostgreSQL); test/schedule/frontier-contract.test.ts runs the same cases against each.
 *
 * The order: breadth-first (level, id), or ordered (priority desc, level, id) among pages with a
 * priority; only pages up to max-level, not waiting for a retry time.
 */
export interface PageFrontier {
  readonly maxLevel: number;
  /** A page queued. */
  add(p: FoundPage): void;
  /** The site's next page in the order, due by `now` (epoch ms), or undefined: none up to max-level. */
  nextPage(siteId: number, now?: number): FrontierPage | undefined;
  /**
   * When the site's soonest waiting page within the order may be asked (epoch ms), or null: none
   * waits. Asked, as the crawl asks it, when the site has no page due: of a page whose time has
   * come, the store still reads that time until the page is taken, the memory not once it was next.
   */
  soonestRetry(siteId: number): number | null;
  /** How many pages the site has queued (beyond max-level and waiting ones too). */
  queued(siteId: number): number;
  /** The page found at `level` (breadth-first, or an order that tracks known pages): it moves up at once. */
  raise(id: number, level: number): void;
  /** The page found at `level` in an order that does not track known pages: the nearer level waits beside it until it is taken, unless it brings the page within max-level. */
  nearer(id: number, level: number): void;
  /** The order's new judgment of a queued page found again at `level`. */
  update(id: number, priority: number, state: OrderState, level: number): void;
  /** Score the site's queued pages again, those `which` picks; start pages come first. */
  rescore(siteId: number, prioritize: Prioritize, which?: Rescore): void;
  /** The page leaves the queue: it is fetched. */
  take(id: number): void;
  /** The page failed for now: it waits until `retryAt`. */
  defer(id: number, attempts: number, firstFailedAt: number, retryAt: number): void;
  /** The site's queued pages at `origin` (URL.origin) wait until `retryAt`: their host is held. */
  putOff(siteId: number, origin: string, retryAt: number): void;
}
