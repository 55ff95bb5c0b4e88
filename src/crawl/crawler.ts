import { setTimeout as sleep } from 'node:timers/promises';
import type { Policy } from '../schedule/sites/policy.js';
import type { Rewards } from '../schedule/sites/reward.js';
import { Scheduler } from '../schedule/scheduler.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import type { SiteCounts, SiteQueues } from '../schedule/page-choice.js';
import { sharedByWorkers, type Db } from '../db/db.js';
import { endIfFrozen, keepReconnecting } from '../db/lost-connection.js';
import { PolitenessWriter } from '../store/politeness.js';
import { rescoreQueued } from '../store/priorities.js';
import type { PullResult } from '../pull/pull-record.js';
import { PullWriter } from '../store/pull-writer.js';
import type { Settings } from '../store/settings.js';
import { dueAgain, queuedLeft, waitingPages, type QueuedLeft } from '../store/frontier.js';
import { settleQueuedLevels } from '../store/queued-levels.js';
import { listSites, recountRewards, reopenSites, siteScopes, type Site } from '../store/sites.js';
import { loadParamRules } from '../store/param-rules.js';
import type { Clock } from '../time/clock.js';
import { SoloCoordinator, type Coordinator } from './coordinator.js';
import { PageReader } from '../net/page-reader.js';
import { failed, startPageProblem } from '../net/pull-result.js';
import { SharedCoordinator } from './shared-coordinator.js';
import { FailedPulls } from './failed-pulls.js';
import { heldHosts } from './held-hosts.js';
import { SitemapReads } from './sitemap-reads.js';
import { politenessBound, sitesAtEnd, type CrawlSummary, type PullEvent, type StartEvent, type StopReason } from './run-report.js';
import { consequence, outcomeOf } from '../net/failure-rule.js';
import { patienceMs, waitedOut, type WaitState } from '../net/waiting.js';
import { HostHolds } from '../net/host-holds.js';
import { certificateIn } from '../net/certificate.js';
import { pickedFate, queuedFate } from '../page/link-fate.js';

export interface CrawlOptions {
  settings: Settings;
  /** Store links again that a user deleted (`links delete`). */
  allowReadd?: boolean;
  policy: Policy;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  signal: AbortSignal;
  onPull?: (e: PullEvent) => void;
  /** Once the stored crawl is learned, before the first pull. */
  onStart?: (e: StartEvent) => void;
  /** No site can go on but after a failure passes: why, and what happens next (called at each wait). */
  onWait?: (w: WaitState) => void;
  /** Where the stored times come from (found_at, fetched_at, the pull log); default the real clock. Benches on the changing web crawl in its virtual time. */
  clock?: Clock;
}

/**
 * The crawl: C workers, each asks the policy for a site when it is free, fetches that site's
 * next page, and commits everything the page gave in one transaction. All state lives in the
 * database, so a rerun continues where a stopped or killed run left off.
 */
export async function crawl(db: Db, o: CrawlOptions): Promise<CrawlSummary> {
  const started = Date.now();
  const s = o.settings;
  keepReconnecting(db, s['db-reconnect']);
  endIfFrozen(db, s['db-reconnect']);
  // A new run: pages that failed for now are due again, and sites Not Available only for the last
  // run (their start page failed for now) are tried again; `seeds retry` reopens any.
  dueAgain(db);
  reopenSites(db, null);
  // The sites' reward sums follow the mode in force (a database may change it between runs).
  recountRewards(db, s.reward);
  // read once: 30,000 sites' rows take a tenth of a second
  const sites = listSites(db);
  const scheduler = new Scheduler(sites, s);
  // A host held for the run puts its pages off past anything the run waits for: the next run asks.
  const holds = new HostHolds(Math.max(s['retry-span'], s['max-backoff']) + 1000);
  const writer = new PullWriter(db, {
    allowReadd: o.allowReadd ?? false, maxQueryVariants: s['max-query-variants'], reward: s.reward, order: scheduler.order ?? undefined,
    indexText: s['index-text'] === 'yes', now: o.clock ? () => o.clock!.now() : undefined, maxLevel: s['max-level'],
  });
  settleQueuedLevels(db, s['max-level'], scheduler.order === null || scheduler.order.tracksKnown);
  // PostgreSQL: this process is one worker of a crawl others may share.
  const coordinator: Coordinator = sharedByWorkers(db)
    ? new SharedCoordinator(db, s, scheduler, writer)
    : new SoloCoordinator(db, s, scheduler);
  const hostsLog = new PolitenessWriter(db);
  const gate = coordinator.gate;
  const reader = await PageReader.open({
    settings: s, scopes: siteScopes(db, s, sites), params: loadParamRules(db), resolve: o.resolve, proxy: o.proxy, gate, analysers: s.concurrency, focus: s.focus !== null,
    onRobots: (r) => {
      const host = new URL(r.origin).host;
      const summary = r.rules.kind === 'parsed' ? r.rules.summary : r.rules.reason;
      const asked = r.rules.kind === 'parsed' && r.rules.crawlDelay !== null ? r.rules.crawlDelay * 1000 : null;
      hostsLog.robots(host, gate.delayOf(host), asked, r.clamped, summary);
    },
  });
  coordinator.start();
  const queues: SiteQueues = {
    nextPage: (id, maxLevel) => coordinator.frontier.nextPage(id, maxLevel),
    soonestRetry: (id, maxLevel) => coordinator.frontier.soonestRetry(id, maxLevel),
    rescore: (id, prioritize, which) => rescoreQueued(db, id, prioritize, which),
    skip: (page, status, why) => writer.skip(page, status, why),
  };
  const solo = s.concurrency <= 1 && coordinator.alone;
  const held = heldHosts(holds, gate, writer, (siteId) => scheduler.state.sites.get(siteId)!.url, solo);
  const open = () => scheduler.open(queues, queuedFate, (host) => coordinator.hostWait(host), solo, held);
  // Opening scores every site's unscored pages (each start page): one transaction, not one a site
  // (at 30,000 sites their commits were most of the start). Workers sharing a PostgreSQL crawl
  // keep one a site: one long transaction would hold rows the others write.
  if (sharedByWorkers(db)) open();
  else db.transaction(open)();
  const { state, choice } = scheduler;
  o.onStart?.({ totalPulls: state.totalPulls, distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, siteCounts: () => choice.siteCounts() });
  // A worker's error (a full disk) stops the others before the reader closes: left running, they
  // would find its connections closed and take that for the network.
  const failed = new AbortController();
  const run = new CrawlRun({ ...o, signal: AbortSignal.any([o.signal, failed.signal]) }, scheduler, coordinator, reader, writer, hostsLog, holds);
  try {
    await run.sitemaps.pending();
    const workers = Array.from({ length: Math.max(1, s.concurrency) }, () => run.worker());
    await Promise.all(workers).catch(async (err: unknown) => {
      failed.abort(err);
      await Promise.allSettled(workers);
      throw err;
    });
  } finally {
    run.wake();
    writer.group.flush();
    writer.text?.catchUp(); // anchors of links found after their page was indexed
    await reader.close();
  }
  coordinator.finish();
  return run.summary(started, waitingPages(db), queuedLeft(db, s['max-level']));
}

/** The workers' loop and one pull, with this run's counters. */
class CrawlRun {
  private reason: StopReason = 'exhausted';
  private pulls = 0;
  private rewards: Rewards = { urls: 0, hosts: 0, pairs: 0 };
  private newUrls = 0;
  private newHosts = 0;
  private reached = 0;
  /** the end of the last pull stored (or the run's start): a waiting run counts from it */
  private lastProgress = Date.now();
  private pullsSeen = 0;
  private failures: FailedPulls;
  readonly sitemaps: SitemapReads;
  private pagesPerHost = new Map<string, number>();
  private waiters: (() => void)[] = [];
  private s: Settings;
  private state: Scheduler<Site>['state'];
  private choice: Scheduler<Site>['choice'];

  constructor(
    private o: CrawlOptions,
    private scheduler: Scheduler<Site>,
    private coordinator: Coordinator,
    private reader: PageReader,
    private writer: PullWriter,
    private hostsLog: PolitenessWriter,
    private holds: HostHolds,
  ) {
    this.s = o.settings;
    this.state = scheduler.state;
    this.choice = scheduler.choice;
    this.failures = new FailedPulls(this.s, o.proxy, scheduler, coordinator, writer, holds, () => this.reached > 0);
    this.sitemaps = new SitemapReads(this.s, o.signal, this.state, this.choice, reader, writer);
    o.signal.addEventListener('abort', this.wake, { once: true });
  }

  readonly wake = (): void => this.waiters.splice(0).forEach((r) => r());

  private siteCounts = (): SiteCounts => this.choice.siteCounts();

  /** One worker: pick a site, take its next page, pull it; until interrupted, the budget is spent or no site has a page left. */
  async worker(): Promise<void> {
    const { o, s, state, choice, coordinator } = this;
    for (;;) {
      if (o.signal.aborted) return void (this.reason = 'interrupted');
      coordinator.catchUp();
      if (state.budgetSpent()) {
        if (state.inFlight.size === 0) this.reason = 'budget';
        return;
      }
      if (state.totalPulls !== this.pullsSeen) {
        // another worker of a shared crawl stored pages: the crawl goes on
        this.pullsSeen = state.totalPulls;
        this.lastProgress = Math.max(this.lastProgress, Date.now());
      }
      const patience = patienceMs(this.reached > 0, s['max-backoff'], s['retry-span']);
      if (waitedOut(Date.now(), this.lastProgress, patience) && this.failing() !== null) {
        // Only failing sites are left and the run waited for them long enough: it ends once the pulls in flight do.
        if (state.inFlight.size === 0) return void (this.reason = 'waiting');
        await this.idle(null);
        continue;
      }
      const id = this.scheduler.next(o.policy);
      if (id === null) {
        let wait = coordinator.idleWait(choice.soonestDelay());
        if (state.inFlight.size === 0 && wait === null) return; // nothing open or pending: every site is exhausted
        const failing = this.failing();
        if (failing) {
          // never silent: why nothing is fetched, and until when the run waits
          const givesUpAt = this.lastProgress + patience;
          // sites in flight whose host keeps failing are as stuck as the others
          let inFlight = 0;
          for (const id of state.inFlight.keys()) if ((state.sites.get(id)?.failures ?? 0) > 0) inFlight++;
          o.onWait?.({ sites: failing.sites + inFlight, cause: this.failures.cause ?? 'failed for now', nextTryMs: failing.soonest, givesUpAt });
          wait = Math.max(1, Math.min(wait ?? Infinity, givesUpAt - Date.now()));
        }
        await this.idle(wait);
        continue;
      }
      const page = choice.pageFor(id);
      if (!page || state.inFlight.has(id)) throw new Error(`policy chose site ${id}, which is not open`);
      const claim = coordinator.claim(id, page);
      if (claim === 'taken') {
        choice.forget(id);
        continue;
      }
      if (claim === 'spent') {
        if (state.inFlight.size === 0) this.reason = 'budget';
        return;
      }
      state.inFlight.set(id, page.id);
      try {
        // Nothing pulled (robots.txt, abandoned): take the pick back so the history stays the crawl's.
        if (!(await this.pull(page))) coordinator.notPulled(id);
      } finally {
        coordinator.release(page);
        state.inFlight.delete(id);
        choice.forget(id);
        this.wake();
      }
    }
  }

  /** The sites that can go on only after a failure passes, when no other can (schedule/page-choice.ts). */
  private failing(): { sites: number; soonest: number | null } | null {
    const gate = this.coordinator.gate;
    return this.choice.failing((host) => gate.state(host).failures > 0 || gate.closedUntil(host) !== null);
  }

  /** Until a pull ends (or an abort), or at most `ms`. */
  private async idle(ms: number | null): Promise<void> {
    const woken = new Promise<void>((r) => this.waiters.push(r));
    await (ms === null ? woken : Promise.race([woken, sleep(ms)]));
  }

  /** Fetch one page and commit it; false when nothing was pulled (robots.txt, abandoned). */
  private async pull(page: FrontierPage): Promise<boolean> {
    const { o, s, state, coordinator, writer } = this;
    const site = state.sites.get(page.siteId)!;
    const host = new URL(page.url).host;
    const robots = await this.reader.robots(page.url, o.signal);
    if (robots === 'aborted') return false;
    const fate = pickedFate({ robots });
    if (fate) {
      writer.skip(page, fate.status, fate.note);
      this.choice.forget(site.id);
      return false;
    }
    let result: PullResult;
    let robotsUntil: number | null = null;
    if (robots.kind === 'wait') {
      // robots.txt unreadable: the host's pages are disallowed for now (RFC 9309), never denied;
      // they wait until the file is asked for again. The site's other hosts go on.
      robotsUntil = robots.until;
      result = failed(page, robots.reason);
    } else {
      // robots.txt may have waited for its host: the page's whole time counts from here.
      if (!coordinator.holds(page)) return false;
      const read = await this.reader.read(page, o.signal);
      if (read === 'abandoned') return false;
      if (read.timedOut) coordinator.gate.failed(host);
      result = read.result;
      result.ms = read.ms;
    }
    const origin = new URL(page.url).origin;
    const closed = coordinator.gate.closedUntil(host);
    const outcome = outcomeOf({ status: result.status, httpStatus: result.httpStatus, error: result.error, robots: robots.kind === 'wait' ? 'unreadable' : null, askedToWait: closed !== null });
    let c = consequence(outcome);
    if (c.page === 'put-off') return this.failures.untrustedHost(page, site, origin, certificateIn(result.error)!, c);
    const hostState = coordinator.gate.state(host);
    if (c.page === 'failed-for-now') {
      const after = this.failures.keepForLater(page, site, host, origin, result, outcome, closed, robotsUntil);
      if (after === null) return false;
      c = after;
    } else if (c.host === 'answered') {
      this.reached++;
      site.failures = 0;
      result.siteFailures = 0;
      this.failures.answered(origin);
    }
    if (page.level === 0 && result.unavailable === null && c.site === 'not-available') result.unavailable = startPageProblem(result);
    // A worker stalled past its lease has lost the page to another, which stores it.
    if (!coordinator.holds(page)) return false;
    const { seq, reward, rewards: got, newUrls, newHosts } = writer.commit(result);
    // a page stored, even as failed for good, is the crawl going on: a waiting run counts from it
    this.lastProgress = Date.now();
    this.hostsLog.state(host, hostState.delayMs, hostState.failures, hostState.pausedUntil);
    this.pagesPerHost.set(host, (this.pagesPerHost.get(host) ?? 0) + 1);
    if (result.unavailable) site.unavailable = result.unavailable;
    coordinator.committed(site, page, result, seq, reward);
    this.pulls++;
    this.rewards.urls += got.urls;
    this.rewards.hosts += got.hosts;
    this.rewards.pairs += got.pairs;
    this.newUrls += newUrls;
    this.newHosts += newHosts;
    this.choice.forget(site.id);
    o.onPull?.({
      seq, site, url: page.url, level: page.level, status: result.status, httpStatus: result.httpStatus,
      error: result.error ?? result.unavailable, reward, rewards: got, totalPulls: state.totalPulls,
      distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, siteCounts: this.siteCounts,
    });
    await this.sitemaps.after(site);
    return true;
  }

  /** Called after the coordinator's finish: the totals are the whole crawl's; `left`: every site's queued pages. */
  summary(started: number, waiting: { total: number; bySite: Map<number, number>; earliest: number | null }, left: Map<number, QueuedLeft>): CrawlSummary {
    const { o, s, state, writer } = this;
    const { stopped, left: sitesLeft } = sitesAtEnd(state.sites.values(), left, this.holds.all(Date.now()), this.failures.causes, (x) => state.capped(x));
    let reason = this.reason;
    if (o.signal.aborted) reason = 'interrupted';
    else if (s.budget !== null && state.totalPulls >= s.budget) reason = 'budget';
    return {
      reason, pulls: this.pulls, rewards: this.rewards, newUrls: this.newUrls, newHosts: this.newHosts,
      distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, mode: s.reward, totalPulls: state.totalPulls, budget: s.budget,
      seconds: (Date.now() - started) / 1000, sites: this.siteCounts(), ...politenessBound(this.pagesPerHost, this.coordinator.gate, s.concurrency),
      reached: this.reached, failedForNow: this.failures.failedForNow, lastFailure: this.failures.lastFailure, cause: this.failures.cause,
      waiting: waiting.total, waitingSites: waiting.bySite.size, earliestRetry: waiting.earliest, stopped, left: sitesLeft, maxLevel: s['max-level'],
      sitemaps: this.sitemaps.read, untrusted: this.failures.untrusted, lastUntrusted: this.failures.lastUntrusted,
    };
  }
}

