import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/db.js';
import { Frontier } from '../store/frontier.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import { KnownExternal } from '../store/known-external.js';
import { PullLog } from '../store/pull-log.js';
import type { PullResult } from '../pull/pull-record.js';
import type { PullWriter } from '../store/pull-writer.js';
import type { Settings } from '../store/settings.js';
import { SharedCrawl } from '../store/shared-crawl.js';
import { listSites, type Site } from '../store/sites.js';
import type { Claim, Coordinator } from './coordinator.js';
import type { Scheduler } from '../schedule/scheduler.js';
import { SharedHostGate } from '../net/shared-host-gate.js';

/**
 * One worker of a crawl shared by several processes on one PostgreSQL store (shared-crawl.ts):
 * a lease on each page it fetches, grants from the global budget, one request at a time per host
 * across workers. Before each pick it reads back what every worker committed since, so the
 * policy's history is the database's, in commit order.
 */
export class SharedCoordinator implements Coordinator {
  readonly alone = false;
  readonly gate: SharedHostGate;
  readonly frontier: Frontier;
  private shared: SharedCrawl;
  private log: PullLog;
  private lastSeq = 0;
  /** Workers commit in any order, so a seq below one already read may still come: seq → since when it is missed (dropped after a minute: a rolled-back pull never comes). */
  private missing = new Map<number, number>();
  /** this worker's pulls: its writer knows their links already */
  private mine = new Set<number>();
  /** hosts in another worker's request or delay → ms left */
  private heldHosts = new Map<string, number>();
  private state: Scheduler<Site>['state'];

  constructor(
    private db: Db,
    s: Settings,
    private scheduler: Scheduler<Site>,
    private writer: PullWriter,
  ) {
    this.state = scheduler.state;
    // A lease outlasts the longest a page can take (every retry timing out), so it never runs out under a live worker.
    const leaseMs = s['page-timeout'] * (s.retries + 1) + 5_000;
    this.shared = new SharedCrawl(db, `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`, leaseMs);
    this.shared.recountBudget();
    this.frontier = new Frontier(db, scheduler.order !== null, true);
    this.gate = new SharedHostGate({ delayMs: s.delay, maxBackoffMs: s['max-backoff'] }, this.shared, s['page-timeout'] + 5_000);
    this.log = new PullLog(db, s.reward);
  }

  start(): void {
    this.learnPulls(true);
    this.state.totalPulls = this.state.history.length;
  }

  catchUp(): void {
    this.sync();
    this.scheduler.choice.forgetAll();
  }

  hostWait(host: string): number {
    return Math.max(this.gate.waitMs(host), this.heldHosts.get(host) ?? 0);
  }

  claim(_siteId: number, page: FrontierPage): Claim {
    if (!this.shared.lease(page.id)) return 'taken';
    if (this.shared.takeBudget()) return 'ok';
    this.shared.release(page.id);
    return 'spent';
  }

  /** Renews the lease: robots.txt may have waited for its host, and a worker stalled past its lease has lost the page to another. */
  holds(page: FrontierPage): boolean {
    return this.shared.renew(page.id);
  }

  committed(_site: Site, _page: FrontierPage, _result: PullResult, seq: number): void {
    this.mine.add(seq); // its counters are read back from the database, with the other workers' pulls
  }

  notPulled(): void {
    this.shared.returnBudget();
  }

  release(page: FrontierPage): void {
    this.shared.release(page.id);
  }

  idleWait(soonest: number | null): number | null {
    let wait = soonest;
    // Pages other workers hold may add links, or come back when a killed worker's lease runs out.
    if (wait === null && this.shared.othersBusy() > 0) wait = Math.min(200, Math.max(1, this.shared.soonestExpiry() ?? 200));
    // A host held by another worker's request frees at its end, sooner than its hold says.
    return wait === null ? null : Math.min(wait, 200);
  }

  finish(): void {
    this.sync();
    this.writer.known = new KnownExternal(this.db); // the distinct totals of the whole shared crawl
  }

  /** What every worker has done so far: the pulls and their rewards in commit order, the sites' counters, the hosts held. */
  private sync(): void {
    this.learnPulls();
    this.state.totalPulls = this.state.history.length;
    this.state.update(listSites(this.db));
    this.heldHosts = this.shared.heldHosts();
  }

  /** Completed pulls after lastSeq, in crawl order, and the ones missed before; at the start, all of them. */
  private learnPulls(start = false): void {
    const { missing, log } = this;
    // streamed: a resumed crawl may have millions of pulls
    const rows = missing.size ? [...log.these(missing.keys()), ...log.after(this.lastSeq)] : log.after(this.lastSeq);
    const theirs: number[] = [];
    for (const pull of rows) {
      this.state.learn(pull);
      const seq = pull[0];
      if (start) this.lastSeq = seq;
      else if (!missing.delete(seq) && seq > this.lastSeq) {
        for (let gap = this.lastSeq + 1; gap < seq; gap++) missing.set(gap, Date.now());
        this.lastSeq = seq;
      }
      if (!start && !this.mine.delete(seq)) theirs.push(pull[9]);
    }
    for (const [seq, since] of missing) if (Date.now() - since > 60_000) missing.delete(seq);
    // The external links other workers stored: so that this worker's rewards count only links new to the crawl.
    if (theirs.length) {
      for (const [site, key, host] of log.externalLinksOf(theirs)) this.writer.known.mark(site, this.writer.known.ask(site, key, host));
    }
  }
}
