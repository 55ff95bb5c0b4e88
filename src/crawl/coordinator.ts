import type { Db } from '../db/db.js';
import { Frontier } from '../store/frontier.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import { PullLog } from '../store/pull-log.js';
import type { PullResult } from '../pull/pull-record.js';
import type { Settings } from '../store/settings.js';
import type { Site } from '../store/sites.js';
import type { Scheduler } from '../schedule/scheduler.js';
import { HostGate } from '../net/host-gate.js';

/** What came of taking the page the policy picked. */
export type Claim = 'ok' | 'taken' | 'spent';

/**
 * What the crawl loop agrees with whoever else crawls the same store: which pages are free, the
 * politeness across processes, the budget, the history the policy sees and the totals at the
 * end. Solo: one process on a SQLite file (its lock file keeps others out). Shared: PostgreSQL,
 * where every `beebot crawl` is one worker of one crawl (shared-coordinator.ts).
 */
export interface Coordinator {
  /** every request of this process goes through it */
  readonly gate: HostGate;
  /** the queued pages this process may take */
  readonly frontier: Frontier;
  /** No other process pulls: with one worker here, the policy's choice is waited for. */
  readonly alone: boolean;
  /** Learn the crawl so far: every stored pull, in crawl order. */
  start(): void;
  /** Before each pick: learn what the others did meanwhile (a site's next page may have been taken). */
  catchUp(): void;
  /** ms until a request to host may start */
  hostWait(host: string): number;
  /** Take the page the policy picked from site `siteId`: 'taken' by another worker first; 'spent': no budget left. */
  claim(siteId: number, page: FrontierPage): Claim;
  /** Whether the page is still this process's to fetch and store (a stalled worker loses it). */
  holds(page: FrontierPage): boolean;
  /** This process stored a pull of the page. */
  committed(site: Site, page: FrontierPage, result: PullResult, seq: number, reward: number): void;
  /** A claimed page was not pulled after all (robots.txt, abandoned): the pick is taken back. */
  notPulled(siteId: number): void;
  /** This process is done with a claimed page, pulled or not. */
  release(page: FrontierPage): void;
  /** Nothing is open: ms to wait before asking the policy again, given the soonest a site's host frees; null: nothing will open. */
  idleWait(soonest: number | null): number | null;
  /** The run ended: the state and the writer's totals become the whole crawl's. */
  finish(): void;
}

/**
 * One crawl process: its workers pick in turn, the history is this run's picks in pick order
 * (taken back when nothing was pulled), and what it commits is learned without reading it back.
 */
export class SoloCoordinator implements Coordinator {
  readonly alone = true;
  readonly gate: HostGate;
  readonly frontier: Frontier;
  private state: Scheduler<Site>['state'];

  constructor(
    private db: Db,
    private s: Settings,
    scheduler: Scheduler<Site>,
  ) {
    this.state = scheduler.state;
    this.gate = new HostGate({ delayMs: s.delay, maxBackoffMs: s['max-backoff'] });
    this.frontier = new Frontier(db, scheduler.order !== null);
  }

  start(): void {
    for (const pull of new PullLog(this.db, this.s.reward).after(0)) this.state.learn(pull);
    this.state.totalPulls = this.state.history.length;
  }

  catchUp(): void {}

  hostWait(host: string): number {
    return this.gate.waitMs(host);
  }

  claim(siteId: number): Claim {
    this.state.history.push(siteId);
    return 'ok';
  }

  holds(): boolean {
    return true;
  }

  committed(site: Site, page: FrontierPage, result: PullResult, _seq: number, reward: number): void {
    this.state.record(site, page.url, result, reward);
  }

  notPulled(siteId: number): void {
    const h = this.state.history;
    h.splice(h.lastIndexOf(siteId), 1);
  }

  release(): void {}

  idleWait(soonest: number | null): number | null {
    return soonest;
  }

  finish(): void {}
}
