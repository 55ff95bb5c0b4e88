// What one pull of the frontier produced, as the store records it: the crawl fills it, the pull
// writer commits it in one transaction.
import type { Rewards } from '../schedule/sites/reward.js';
import type { FoundLinks } from '../page/found-links.js';
import type { Prioritize, Rescore } from './priorities.js';
import type { PagePrint } from '../page/page-fingerprint.js';
import type { PageText } from '../page/page-text.js';
import type { FrontierPage, OrderState } from './frontier.js';

/** The response headers a pull keeps (the map and the refresh checks read them). */
export interface HeaderFacts {
  lastModified: string | null;
  expires: string | null;
  etag: string | null;
  cacheControl: string | null;
  contentLanguage: string | null;
}

export type PageStatus = 'done' | 'not-html' | 'error' | 'redirect';
/** A page a refresh found answering 404 or 410 (src/refresh). */
export const GONE = 'gone';
/** Statuses of pages that are stored but never fetched. */
export type SkipStatus = 'robots-denied' | 'trap' | 'file' | 'skipped';
export interface Hop {
  url: string;
  status: number | null;
  location: string | null;
}

/** Everything one pull of the frontier produced: written in ONE transaction by commitPull. */
export interface PullResult {
  page: FrontierPage;
  /** Set when the page redirected inside the site: the final page is the one stored as processed. */
  final: { url: string; key: string } | null;
  status: PageStatus;
  httpStatus: number | null;
  contentType: string | null;
  bytes: number | null;
  /** The Content-Length header, and the other headers the map reports; absent or null: unknown. */
  contentLength?: number | null;
  facts?: HeaderFacts | null;
  /** An HTML page's <title>; absent or null: none. */
  title?: string | null;
  encoding: string | null;
  encodingSource: string | null;
  error: string | null;
  hops: Hop[];
  links: FoundLinks;
  /** the page's text blocks, when the crawl indexes text (setting index-text) */
  text?: PageText | null;
  ms: number;
  /** Requests repeated after transient failures (not counted against the budget). */
  retries: number;
  /** The content's fingerprint and size (page-fingerprint.ts); absent or null: not read. */
  print?: PagePrint | null;
  /** Term counts of the page's title and text (topic-focused crawls). */
  terms?: Record<string, number>;
  /** A limit that triggered on this page, e.g. 'links-capped: 10000 of 100000 kept'. */
  note: string | null;
  /** The site's start page failed: mark the whole site not-available with this reason. */
  unavailable: string | null;
  /** The site's pages failed in a row on its host after this pull (net/transient.ts); absent: unchanged. */
  siteFailures?: number;
}

/** What a refresh's re-read changed in a page's links (internal, external and bad together). */
export interface LinkChanges {
  /** links new on the page, or back on it */
  linksAdded: number;
  linksGone: number;
}

export interface Committed extends LinkChanges {
  seq: number;
  /** the reward under the crawl's mode (what the bandit sees) */
  reward: number;
  rewards: Rewards;
  /** external URLs and outside hosts new to the whole store (for live totals) */
  newUrls: number;
  newHosts: number;
}

export interface OrderedLink {
  url: string;
  anchor: string;
  cues: string | undefined;
  /** its stored state, when the page is queued already */
  known: OrderState | null;
}

export interface LinkOrder {
  /**
   * The pulled page gave `reward` (and in a focused crawl has these terms): heard before its links
   * are scored (the order learns from it). Returns the page's relevance to store, or null.
   */
  learn(page: FrontierPage, reward: number, terms: Record<string, number> | undefined): number | null;
  /**
   * Whether a link to a page already queued changes its state and priority (cash, inheritance,
   * in-links do). False: a queued page keeps its priority until its site's queue is scored again,
   * and such a link only raises its level (children() hears new pages alone).
   */
  readonly tracksKnown: boolean;
  /**
   * After this pull, learned, which of the site's queued pages are due to be scored again (null:
   * none; `queued(atMost)` counts them, up to atMost): the writer does it with the pull, in its
   * transaction, so a resumed crawl finds the queue as an uninterrupted one had it.
   */
  rescoreAfter(page: FrontierPage, reward: number, queued: (atMost: number) => number): Rescore | null;
  prioritize: Prioritize;
  /** The new state and priority of each distinct queued (when tracksKnown) or new page the pulled page links to. */
  children(page: FrontierPage, reward: number, relevance: number | null, links: OrderedLink[]): { state: OrderState; priority: number }[];
}
