// A queued page as the scheduler sees it: the store's frontier (store/frontier.ts) reads these
// from its rows, the offline replay (src/replay) keeps them in memory.

/** What an ordered crawl keeps with each queued page (columns of `pages`). */
export interface OrderState {
  cues: string;
  cash: number;
  inherit: number;
  dist: number;
  inlinks: number;
}

export interface FrontierPage {
  id: number;
  siteId: number;
  url: string;
  level: number;
  /** failed attempts so far, and when the first failed (epoch ms): see net/failure-rule.ts; absent: none */
  attempts?: number;
  firstFailedAt?: number | null;
  /** anchor text of the link that queued it, and what the order keeps with it (ordered crawls only) */
  anchor?: string | null;
  state?: OrderState;
  /** its priority (ordered crawls only): with --order value, its predicted new external URLs */
  priority?: number;
}
