// What one pull of the frontier produced, as the store records it: the network fills it
// (net/pull-result.ts), the pull writer (store/pull-writer.ts) commits it in one transaction.
import type { Rewards } from '../schedule/sites/reward.js';
import type { FoundLinks } from '../page/found-links.js';
import type { PagePrint } from '../page/page-fingerprint.js';
import type { PageText } from '../page/page-text.js';
import type { FrontierPage } from '../schedule/queued-page.js';

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
  /** The site's pages failed in a row on its host after this pull (net/failure-rule.ts); absent: unchanged. */
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
