import { Topic } from './focus/topic.js';
import { termCounts } from './focus/terms.js';
import type { ValueParams } from './links/link-value.js';
import type { Order } from './links/priority.js';
import { CrawlOrder } from './link-order.js';
import { CrawlState, type SiteTally, type StateSettings } from './crawl-state.js';
import { PageChoice, waitsInRun, type ChoiceSettings, type HeldHosts, type PickFate, type SiteQueues } from './page-choice.js';
import type { Policy } from './sites/policy.js';
import { randomFor } from './sites/random.js';

/**
 * The crawl's one door to scheduling: which site and page come next (the policy over the sites,
 * page-choice.ts), how a pulled page's links are ordered (link-order.ts, which the pull writer
 * calls), and what each pull teaches (crawl-state.ts). The crawl loop (src/crawl) and the offline
 * replay (src/replay) build one each, so both decide with the same code. Open it on the queued
 * pages before the first pick: the crawl's queues need the writer, which needs the order.
 */
export class Scheduler<S extends SiteTally = SiteTally> {
  /** What orders a pulled page's links; null: breadth-first. */
  readonly order: CrawlOrder | null;
  /** What the crawl knows when it picks: the sites, the history the policy sees, the pages in flight. */
  readonly state: CrawlState<S>;
  private opened: PageChoice | null = null;

  constructor(
    sites: readonly S[],
    private s: SchedulerSettings,
    value?: ValueParams,
  ) {
    // A focused crawl scores every page against the topic, whatever the order (bfs too: its harvest rate is measured).
    const topic = s.focus === null ? null : new Topic(termCounts(s.focus), s['focus-threshold']);
    this.order = s.order === 'bfs' && !topic ? null : new CrawlOrder(s.order, topic, value);
    this.state = new CrawlState(sites, s, this.order);
  }

  /**
   * Choose from these queued pages from now on, each page's fate as it comes up decided by `fate`
   * (page-choice.ts PageChoice says what hostWait and waitForChoice are). An ordered crawl scores
   * the queued pages that have no priority yet.
   */
  open(queues: SiteQueues, fate: PickFate, hostWait: (host: string) => number, waitForChoice: boolean, held: HeldHosts | null = null): void {
    this.opened = new PageChoice(queues, this.s, this.state, fate, hostWait, waitForChoice, held);
    this.opened.scoreUnscored();
  }

  /** What the policy may pick from: each site's next page and whether the site is open now. */
  get choice(): PageChoice {
    if (!this.opened) throw new Error('the scheduler chooses from queued pages only once opened on them');
    return this.opened;
  }

  /** The site whose next page the policy picks, or null when none is open. */
  next(policy: Policy): number | null {
    if (policy.byWorth) return this.choice.first();
    const { history } = this.state;
    return policy({ arms: this.choice.arms(), history, budget: this.s.budget, random: randomFor(this.s.seed, history.length) });
  }

  /** Whether this run waits for something `ms` away, or a later run asks (page-choice.ts waitsInRun). */
  waitsInRun(ms: number): boolean {
    return waitsInRun(ms, this.s['max-backoff']);
  }
}

/** The crawl's settings that scheduling reads. */
export interface SchedulerSettings extends StateSettings, ChoiceSettings {
  order: Order;
  focus: string | null;
  'focus-threshold': number;
  seed: number;
}
