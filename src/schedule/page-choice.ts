import type { Arm } from './sites/policy.js';
import type { FrontierPage } from './queued-page.js';
import type { Prioritize, Rescore } from './links/rescore.js';
import type { CrawlState, SiteTally } from './crawl-state.js';
import { Wakes } from './wakes.js';
import { RankedArms } from './ranked-arms.js';

export interface SiteCounts {
  /** pages left (or in flight) */
  crawling: number;
  /** no page left up to max-level */
  exhausted: number;
  /** nothing to fetch now, but pages that wait for a host that failed */
  waiting: number;
  /** max-pages-per-site reached (status says 'capped' too) */
  capped: number;
  unavailable: number;
}

/**
 * The queued pages a choice reads and changes: the store's (the crawl), or the offline replay's,
 * in memory (src/replay), so both choose with this same code.
 */
export interface SiteQueues {
  /** the site's next page up to maxLevel (the frontier's order), or undefined */
  nextPage(siteId: number, maxLevel: number): FrontierPage | undefined;
  /** when the site's soonest page that failed for now may be asked again (epoch ms), or null */
  soonestRetry(siteId: number, maxLevel: number): number | null;
  /** score the site's queued pages again: those `which` picks (links/rescore.ts) */
  rescore(siteId: number, prioritize: Prioritize, which?: Rescore): void;
  /** a queued page that will not be fetched */
  skip(page: FrontierPage, status: 'skipped' | 'robots-denied', why: string): void;
}

/**
 * A queued page's fate as it comes up, before the policy sees it (page/link-fate.ts, from what
 * the crawl state knows: the dead ends): null to fetch it, else how it is stored unfetched.
 */
export type PickFate = (page: FrontierPage, state: CrawlState) => { status: 'skipped' | 'robots-denied'; note: string } | null;

/**
 * Hosts the crawl does not ask now (net/host-holds.ts): a site's page on such a host is put off
 * and the site goes on with its other hosts. The offline replay has none.
 */
export interface HeldHosts {
  /** when the page is due again when its host is held now (epoch ms), else null */
  retryAt(page: FrontierPage): number | null;
  /** put off the site's queued pages on the page's host until `retryAt` (their attempts unchanged) */
  putOff(page: FrontierPage, retryAt: number): void;
}

/** The crawl's settings a choice reads. */
export interface ChoiceSettings {
  'max-level': number;
  'max-backoff': number;
}

/**
 * Whether a run waits for something `waitMs` away (a page's retry, a robots.txt asked again): for
 * a host's pause (at most `maxBackoffMs`), not for a page that waits out its retry-span.
 */
export function waitsInRun(waitMs: number, maxBackoffMs: number): boolean {
  return waitMs <= maxBackoffMs;
}

/**
 * What the policy may pick from: each site's next page and whether the site is open now. A
 * site's next page is the frontier's, past the pages whose fate is not to be pulled (a dead end):
 * stored as that fate says (an ordered crawl's writer re-scores the queue: LinkOrder.rescoreAfter).
 */
export class PageChoice {
  /** site id → its next page and that page's host (parsed once: every pick reads every site's) */
  private next = new Map<number, Next | undefined>();
  /** site id → when its soonest page that failed for now is due (epoch ms; null: none), asked when it has no page due */
  private retries = new Map<number, number | null>();
  /** the arms, in the sites' order, and what of them a pick must bring up to date (arms()) */
  private armList: Arm[] = [];
  private armAt = new Map<number, number>();
  private stale = new Set<number>();
  private allStale = true;
  /** sites whose arm changes at a time (a host's pause ends, a retry comes due): brought up to date then */
  private wakes = new Wakes();
  /** how many arms are open */
  private openArms = 0;
  /** sites whose next page's value moves with what the crawl learns (its mean): valued again at every pick */
  private valued = new Map<number, FrontierPage>();
  /** host → the sites whose next page is on it (a request to the host changes whether they are open) */
  private onHost = new Map<string, Set<number>>();
  /** the open arms in the pages policy's rank: its pick without a pass over every site (first()) */
  private ranked = new RankedArms();

  /**
   * hostWait: ms until a request to a host may start. waitForChoice: one puller in the whole
   * crawl, so a site whose host is in its delay stays open and the policy's choice is waited for;
   * with several, such a site is skipped for this pick (another site is crawled meanwhile).
   */
  constructor(
    private queues: SiteQueues,
    private s: ChoiceSettings,
    private state: CrawlState,
    private fate: PickFate,
    private hostWait: (host: string) => number,
    private waitForChoice: boolean,
    private held: HeldHosts | null = null,
  ) {}

  /**
   * Ordered crawls, at the start: queued pages without a priority (start pages, pages a
   * breadth-first run queued) get one; the others keep theirs, as an uninterrupted crawl would have.
   */
  scoreUnscored(): void {
    const order = this.state.order;
    if (order) for (const x of this.state.sites.values()) this.queues.rescore(x.id, order.prioritize, 'unscored');
  }

  /** The site's next page (undefined: none left up to max-level), asked once until forgotten. */
  pageFor(id: number): FrontierPage | undefined {
    return this.nextOf(id)?.page;
  }

  private nextOf(id: number): Next | undefined {
    const due = this.retries.get(id);
    if (due != null && due <= Date.now()) this.forget(id); // a page that failed for now may be asked again
    if (!this.next.has(id)) {
      const next = () => this.queues.nextPage(id, this.s['max-level']);
      let page = next();
      while (page) {
        const skip = this.fate(page, this.state);
        if (skip) this.queues.skip(page, skip.status, skip.note);
        else {
          const at = this.held?.retryAt(page) ?? null;
          if (at === null) break;
          this.held!.putOff(page, at);
        }
        page = next();
      }
      const host = page && new URL(page.url).host;
      this.next.set(id, page && { page, host: host! });
      if (host !== undefined) {
        const on = this.onHost.get(host);
        if (on) on.add(id);
        else this.onHost.set(host, new Set([id]));
      }
    }
    return this.next.get(id);
  }

  /** Pages were queued for a site outside a pull (its sitemaps): an ordered crawl scores them, and the next page is asked again. */
  scoreSite(id: number): void {
    const order = this.state.order;
    if (order) this.queues.rescore(id, order.prioritize, 'unscored');
    this.forget(id);
  }

  /** The site's next page may have changed: ask the frontier again. */
  forget(id: number): void {
    const host = this.next.get(id)?.host;
    if (host !== undefined) {
      // the site's request to its host ended (or will): the others waiting for that host are asked again
      const on = this.onHost.get(host)!;
      on.delete(id);
      for (const other of on) this.stale.add(other);
      if (on.size === 0) this.onHost.delete(host);
    }
    this.next.delete(id);
    this.retries.delete(id);
    this.stale.add(id);
  }

  forgetAll(): void {
    this.next.clear();
    this.retries.clear();
    this.onHost.clear();
    this.allStale = true;
  }

  /**
   * ms until the site can go on when only pages that failed for now (or were put off) are left.
   * Null when it does not wait, or not in this run (waitsInRun): a later run asks.
   */
  private waitOf(x: SiteTally): number | null {
    const now = Date.now();
    const at = this.soonest(x);
    if (at === null || !waitsInRun(at - now, this.s['max-backoff'])) return null;
    return Math.max(1, at - now);
  }

  /** When the site's soonest page that failed for now (or was put off) is due (epoch ms), or null: none waits. */
  private soonest(x: SiteTally): number | null {
    if (!this.retries.has(x.id)) this.retries.set(x.id, this.queues.soonestRetry(x.id, this.s['max-level']));
    const at = this.retries.get(x.id) ?? null;
    if (at !== null) this.wakes.add(at, x.id); // its page comes back when due
    return at;
  }

  /**
   * The sites as the policy sees them, in the sites' order. The arms are kept between picks and a
   * pick brings up to date only those that may have changed: the sites forgotten since (a pull, a
   * failure, new pages), those in flight, and those that move with time or the crawl's learning
   * (a host's pause, a retry due, a value the crawl's mean moves). At 30,000 sites, making every
   * arm anew was the crawl's cost. The policy reads them during its call only (sites/policy.ts).
   */
  arms(): Arm[] {
    this.update();
    for (const [id, page] of this.valued) this.armList[this.armAt.get(id)!]!.next = this.worth(id, page);
    return this.armList;
  }

  /** Brings the arms up to date but for the values that move with the crawl's mean (arms()). */
  private update(): void {
    const { sites, inFlight } = this.state;
    if (this.armList.length !== sites.size) {
      this.armList = [...sites.values()].map((x) => ({ id: x.id, pulls: 0, rewardSum: 0, rewardMax: 0, rewards: this.state.rewards.get(x.id)!, open: false, group: x.group, next: undefined }));
      this.armAt = new Map(this.armList.map((a, i) => [a.id, i]));
      this.allStale = true;
    }
    if (this.allStale) {
      this.allStale = false;
      this.stale.clear();
      this.wakes.clear();
      this.valued.clear();
      this.ranked.clear();
      this.openArms = 0;
      for (const a of this.armList) a.open = false;
      for (const x of sites.values()) this.refresh(x);
      return;
    }
    const due = new Set([...this.stale, ...this.wakes.due(Date.now()), ...inFlight.keys()]);
    this.stale.clear();
    for (const id of due) {
      const x = sites.get(id);
      if (x) this.refresh(x);
    }
  }

  /** Bring a site's arm up to date; one that changes at a time is woken then (wakes), one whose value moves with the crawl's mean is valued at every pick (valued). */
  private refresh(x: SiteTally): void {
    const arm = this.armList[this.armAt.get(x.id)!]!;
    const next = this.pending(x);
    const wait = next === undefined || this.waitForChoice ? 0 : this.hostWait(next.host);
    const p = next?.page.priority;
    arm.pulls = x.pulls + (this.state.inFlight.has(x.id) ? 1 : 0);
    arm.rewardSum = x.rewardSum;
    arm.rewardMax = x.rewardMax;
    const open = next !== undefined && wait <= 0;
    this.openArms += Number(open) - Number(arm.open);
    arm.open = open;
    arm.next = next && this.worth(x.id, next.page);
    this.valued.delete(x.id);
    const retry = this.retries.get(x.id);
    if (wait > 0) this.wakes.add(Date.now() + wait, x.id);
    if (retry != null) this.wakes.add(retry, x.id);
    const moves = next !== undefined && p !== undefined && this.state.order?.worthMoves(p) === true;
    if (moves) this.valued.set(x.id, next.page);
    if (open) this.ranked.set(arm, moves, p);
    else this.ranked.drop(x.id);
  }

  /**
   * The pages policy's pick (sites/pages.ts): the open site that ranks first by worth, read from
   * the ranked arms, not from a pass over every site's arm. The same site as pages()(arms()).
   */
  first(): number | null {
    this.update();
    const order = this.state.order;
    return this.ranked.first(
      (id, p) => order!.worth(id, p),
      (p) => order!.worthCeiling(p),
    );
  }

  /** ms until the soonest site with a page left may be pulled; null: none has one. */
  soonestDelay(): number | null {
    let soonest: number | null = null;
    for (const x of this.state.sites.values()) {
      if (x.unavailable !== null || this.state.inFlight.has(x.id) || this.state.capped(x)) continue;
      const next = this.nextOf(x.id);
      const wait = next === undefined ? this.waitOf(x) : Math.max(1, this.hostWait(next.host));
      if (wait !== null) soonest = Math.min(soonest ?? Infinity, wait);
    }
    return soonest;
  }

  /**
   * When no site can go on in this run but after a failure passes (only pages that failed for now
   * or were put off left, or a next page whose host backs off): how
   * many such sites and ms to the soonest try. Null when a site can go on otherwise, or none
   * waits. Sites in flight are left out: their pull says what they are.
   */
  failing(hostFailing: (host: string) => boolean): { sites: number; soonest: number | null } | null {
    // a site open now can go on: asking every site of a study at each turn was the run's cost
    if (!this.waitForChoice) {
      this.update();
      if (this.openArms > 0) return null;
    }
    let sites = 0;
    let soonest: number | null = null;
    const until = (ms: number | null) => {
      sites++;
      if (ms !== null) soonest = Math.min(soonest ?? Infinity, Math.max(0, ms));
    };
    for (const x of this.state.sites.values()) {
      if (x.unavailable !== null || this.state.inFlight.has(x.id) || this.state.capped(x)) continue;
      const next = this.nextOf(x.id);
      if (next === undefined) {
        const wait = this.waitOf(x);
        if (wait !== null) until(wait);
      } else if (hostFailing(next.host) && this.hostWait(next.host) > 0) until(this.hostWait(next.host));
      else return null;
    }
    return sites === 0 ? null : { sites, soonest };
  }

  /** The sites by state now. */
  siteCounts(): SiteCounts {
    const c = { crawling: 0, exhausted: 0, waiting: 0, capped: 0, unavailable: 0 };
    for (const x of this.state.sites.values()) {
      if (x.unavailable !== null) c.unavailable++;
      else if (this.state.inFlight.has(x.id)) c.crawling++;
      else if (this.pageFor(x.id) === undefined) c[this.soonest(x) === null ? 'exhausted' : 'waiting']++;
      else if (this.state.capped(x)) c.capped++;
      else c.crawling++;
    }
    return c;
  }

  /** The site's next page when it is available, not in flight, not capped, with a page left. */
  private pending(x: SiteTally): Next | undefined {
    return x.unavailable === null && !this.state.inFlight.has(x.id) && !this.state.capped(x) ? this.nextOf(x.id) : undefined;
  }

  /** The page's priority in the order's common unit. */
  private worth(id: number, page: FrontierPage): number | undefined {
    const p = page.priority;
    return p === undefined || !this.state.order ? p : this.state.order.worth(id, p);
  }
}

interface Next {
  page: FrontierPage;
  host: string;
}
