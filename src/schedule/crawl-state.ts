import type { CrawlOrder } from './link-order.js';
import { DeadEnds, pullOutcome } from './dead-ends.js';

/**
 * What the crawl knows when it picks: each site's counters and its rewards in crawl order, the
 * history the policy sees, the dead ends met, the pages in flight. A run starts by learning every
 * stored pull (the coordinator feeds them in crawl order), so a resumed crawl decides as an
 * uninterrupted one would have.
 */
export class CrawlState<S extends SiteTally = SiteTally> {
  readonly sites: Map<number, S>;
  /** site id → its pulls' rewards under the crawl's mode, in crawl order */
  readonly rewards: Map<number, number[]>;
  /**
   * What the policy sees as history: completed pulls in crawl order (from the database), then
   * this run's picks in pick order (in-flight ones count as pulled). With one worker the two
   * orders are the same, so a resumed crawl sees exactly what an uninterrupted one saw.
   */
  readonly history: number[] = [];
  readonly deadEnds: DeadEnds;
  /** completed pulls of the whole crawl */
  totalPulls = 0;
  /** site id → page id (one page per site at a time) */
  readonly inFlight = new Map<number, number>();

  constructor(
    sites: readonly S[],
    private s: StateSettings,
    readonly order: CrawlOrder | null,
  ) {
    this.sites = new Map(sites.map((x) => [x.id, x]));
    this.rewards = new Map(sites.map((x) => [x.id, []]));
    this.deadEnds = new DeadEnds(s['dead-end-after']);
  }

  /** A stored pull, the next in crawl order. */
  learn([, siteId, reward, url, status, httpStatus, anchor, cues, terms]: StoredPull): void {
    this.history.push(siteId);
    this.rewards.get(siteId)?.push(reward);
    this.deadEnds.record(siteId, url, pullOutcome(status, httpStatus));
    this.order?.relearn(siteId, url, anchor, cues, reward, terms);
  }

  /** A pull this process just committed, learned without reading it back (its pick is in the history already). */
  record(site: S, url: string, result: { status: string; httpStatus: number | null }, reward: number): void {
    this.deadEnds.record(site.id, url, pullOutcome(result.status, result.httpStatus));
    site.pulls++;
    site.rewardSum += reward;
    site.rewardMax = Math.max(site.rewardMax, reward);
    this.rewards.get(site.id)!.push(reward);
    this.totalPulls++;
  }

  /** The sites' counters as the database has them now (other workers pull too). */
  update(stored: readonly SiteTally[]): void {
    for (const x of stored) {
      const site = this.sites.get(x.id);
      if (site) Object.assign(site, { pulls: x.pulls, rewardSum: x.rewardSum, rewardMax: x.rewardMax, unavailable: x.unavailable });
    }
  }

  /** The site reached max-pages-per-site. */
  capped(x: SiteTally): boolean {
    return this.s['max-pages-per-site'] !== null && x.pulls >= this.s['max-pages-per-site'];
  }

  /** The budget is spent, counting the pages in flight. */
  budgetSpent(): boolean {
    return this.s.budget !== null && this.totalPulls + this.inFlight.size >= this.s.budget;
  }
}

/** What the scheduler reads and keeps of a site: the store's sites (store/sites.ts) have these and more. */
export interface SiteTally {
  id: number;
  group: string | null;
  /** why the site is Not Available; null: it is */
  unavailable: string | null;
  pulls: number;
  rewardSum: number;
  rewardMax: number;
}

/** The crawl's settings the state reads. */
export interface StateSettings {
  budget: number | null;
  'max-pages-per-site': number | null;
  'dead-end-after': number | null;
}

/** One completed pull as a crawl relearns it (raw rows of the store's pull log: a resumed crawl may read millions). */
export type StoredPull = [
  seq: number,
  siteId: number,
  /** the reward under the crawl's mode */
  reward: number,
  url: string,
  status: string,
  httpStatus: number | null,
  anchor: string | null,
  cues: string | null,
  terms: string | null,
  pageId: number,
];
