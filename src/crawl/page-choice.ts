import type { Arm } from '../bandit/policy.js';
import { RESCORE_EVERY } from '../order/priority.js';
import type { FrontierPage } from '../store/frontier.js';
import type { Prioritize } from '../store/priorities.js';
import type { Settings } from '../store/settings.js';
import type { Site } from '../store/sites.js';
import type { CrawlState } from './crawl-state.js';

export interface SiteCounts {
  /** pages left (or in flight) */
  crawling: number;
  /** no page left up to max-level, or max-pages-per-site reached */
  exhausted: number;
  unavailable: number;
}

/**
 * The queued pages a choice reads and changes: the store's (the crawl), or the offline replay's
 * in-memory twin (src/harvest), so both choose with this same code.
 */
export interface SiteQueues {
  /** the site's next page up to maxLevel (the frontier's order), or undefined */
  nextPage(siteId: number, maxLevel: number): FrontierPage | undefined;
  /** score the site's queued pages again (onlyUnscored: those without a priority alone) */
  rescore(siteId: number, prioritize: Prioritize, onlyUnscored?: boolean): void;
  /** a queued page that will not be fetched */
  skip(page: FrontierPage, status: 'skipped', why: string): void;
}

/**
 * What the policy may pick from: each site's next page and whether the site is open now. A
 * site's next page is the frontier's, past the links of a dead-end class (dead-ends.ts), which
 * are stored as skipped, never pulled; an ordered crawl re-scores the site's queue first when due.
 */
export class PageChoice {
  private next = new Map<number, FrontierPage | undefined>();
  private rescored = new Map<number, number>(); // site id → its pull count at the last re-scoring

  /**
   * hostWait: ms until a request to a host may start. waitForChoice: one puller in the whole
   * crawl, so a site whose host is in its delay stays open and the policy's choice is waited for;
   * with several, such a site is skipped for this pick (another site is crawled meanwhile).
   */
  constructor(
    private queues: SiteQueues,
    private s: Settings,
    private state: CrawlState,
    private hostWait: (host: string) => number,
    private waitForChoice: boolean,
  ) {}

  /**
   * Ordered crawls, at the start: queued pages without a priority (start pages, pages a
   * breadth-first run queued) get one; the others keep theirs, as an uninterrupted crawl would have.
   */
  scoreUnscored(): void {
    const order = this.state.order;
    if (order) for (const x of this.state.sites.values()) this.queues.rescore(x.id, order.prioritize, true);
  }

  /** The site's next page (undefined: none left up to max-level), asked once until forgotten. */
  pageFor(id: number): FrontierPage | undefined {
    if (!this.next.has(id)) {
      const order = this.state.order;
      const pulls = this.state.sites.get(id)!.pulls;
      // Re-score every RESCORE_EVERY pulls, and after a page that paid far above the site's mean
      // (its words just became worth following).
      const last = this.state.rewards.get(id)!.at(-1) ?? 0;
      if (order && pulls > 0 && (pulls % RESCORE_EVERY === 0 || order.surprise(id, last)) && this.rescored.get(id) !== pulls) {
        this.queues.rescore(id, order.prioritize);
        this.rescored.set(id, pulls);
      }
      const next = () => this.queues.nextPage(id, this.s['max-level']);
      let page = next();
      for (let why; page && (why = this.state.deadEnds.verdict(id, page.url)); page = next()) this.queues.skip(page, 'skipped', why);
      this.next.set(id, page);
    }
    return this.next.get(id);
  }

  /** The site's next page may have changed: ask the frontier again. */
  forget(id: number): void {
    this.next.delete(id);
  }

  forgetAll(): void {
    this.next.clear();
  }

  /** The sites as the policy sees them. */
  arms(): Arm[] {
    const { inFlight } = this.state;
    return [...this.state.sites.values()].map((x) => {
      const pending = this.pending(x);
      return {
        id: x.id,
        pulls: x.pulls + (inFlight.has(x.id) ? 1 : 0),
        rewardSum: x.rewardSum,
        rewardMax: x.rewardMax,
        rewards: this.state.rewards.get(x.id)!,
        open: pending && (this.waitForChoice || this.delayOf(x.id) <= 0),
        group: x.group,
        next: pending ? this.pageFor(x.id)!.priority : undefined,
      };
    });
  }

  /** ms until the soonest site with a page left may be pulled; null: none has one. */
  soonestDelay(): number | null {
    let soonest: number | null = null;
    for (const x of this.state.sites.values()) {
      if (!this.pending(x)) continue;
      soonest = Math.min(soonest ?? Infinity, Math.max(1, this.delayOf(x.id)));
    }
    return soonest;
  }

  /** The sites by state now. */
  siteCounts(): SiteCounts {
    const c = { crawling: 0, exhausted: 0, unavailable: 0 };
    for (const x of this.state.sites.values()) {
      if (x.unavailable !== null) c.unavailable++;
      else if (this.state.inFlight.has(x.id) || (!this.state.capped(x) && this.pageFor(x.id) !== undefined)) c.crawling++;
      else c.exhausted++;
    }
    return c;
  }

  /** Available, not in flight, not capped, with a page left. */
  private pending(x: Site): boolean {
    return x.unavailable === null && !this.state.inFlight.has(x.id) && !this.state.capped(x) && this.pageFor(x.id) !== undefined;
  }

  private delayOf(id: number): number {
    return this.hostWait(new URL(this.pageFor(id)!.url).host);
  }
}
