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
import type { HostGate } from '../net/host-gate.js';
import { PageReader } from '../net/page-reader.js';
import { failed, startPageProblem } from '../net/pull-result.js';
import { SharedCoordinator } from './shared-coordinator.js';
import { HostBusy } from '../net/shared-host-gate.js';
import { afterFailure, backoffMs, consequence, failuresInARow, givesUp, mayFailForGood, outcomeOf, retryWaitMs, type Consequence, type Outcome } from '../net/failure-rule.js';
import { counted } from '../markup/counted.js';
import { clockTime, failureCause, patienceMs, waitedOut, type WaitState } from '../net/waiting.js';
import { HostHolds } from '../net/host-holds.js';
import { certificateIn } from '../net/certificate.js';
import { pickedFate, queuedFate } from '../page/link-fate.js';

export type { SiteCounts } from '../schedule/page-choice.js';

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

export interface PullEvent {
  seq: number;
  site: Site;
  url: string;
  level: number;
  status: PullResult['status'];
  httpStatus: number | null;
  error: string | null;
  /** the reward under the crawl's mode */
  reward: number;
  rewards: Rewards;
  totalPulls: number;
  /** the sites by state now (counted when asked: a display asks a few times a second) */
  siteCounts: () => SiteCounts;
  /** distinct external URLs and outside hosts in the whole store after this pull */
  distinctUrls: number;
  distinctHosts: number;
}

/** A site's queued pages at the end of a run, by why each was not fetched. */
export interface SiteLeft {
  site: string;
  /** Not Available (in this run or until seeds retry): its pages wait for that */
  unavailable: boolean;
  /** at max-pages-per-site */
  capped: boolean;
  queued: number;
  beyondLevel: number;
  /** the pages that wait for a host, most first: why (the host's last failure in this run), and whether the host is left to the next run */
  hosts: { origin: string; pages: number; earliest: number; cause: string; nextRun: boolean }[];
  /** the others, up to max-level and due: left by the budget, an interruption, the cap or the site's state */
  due: number;
}

/** Where the crawl starts from: the pages fetched before this run (0: a new crawl). */
export type StartEvent = Pick<PullEvent, 'totalPulls' | 'distinctUrls' | 'distinctHosts' | 'siteCounts'>;

/** waiting: only sites that failed for now were left, and the run waited for them as long as it may (net/waiting.ts) */
export type StopReason = 'budget' | 'exhausted' | 'interrupted' | 'waiting';

export interface CrawlSummary {
  reason: StopReason;
  pulls: number; // this run
  /** this run's rewards: external URLs and outside hosts new to their site, (page, URL) pairs new to the store */
  rewards: Rewards;
  /** external URLs and outside hosts new to the whole store this run, and the store's totals after it */
  newUrls: number;
  newHosts: number;
  distinctUrls: number;
  distinctHosts: number;
  mode: keyof Rewards;
  totalPulls: number;
  budget: number | null;
  seconds: number;
  /** What politeness alone costs: the busiest host's pages × its delay (or all hosts' over the workers). */
  lowerBoundSeconds: number;
  busiestHost: { host: string; pages: number; delayMs: number } | null;
  /** the sites by state at the end */
  sites: SiteCounts;
  /** this run's pulls that reached their server (anything but a failure for now) */
  reached: number;
  /** this run's attempts that failed for now (network, timeout, 5xx, 429, robots.txt unreadable), and the last one */
  failedForNow: number;
  lastFailure: string | null;
  /** queued pages that failed for now and wait for a later run, their sites, and the soonest of their retry times (epoch ms) */
  waiting: number;
  waitingSites: number;
  earliestRetry: number | null;
  /** the last failure for now in a few words (net/waiting.ts failureCause) */
  cause: string | null;
  /** why each site that did not run to its end stopped */
  stopped: { site: string; why: string }[];
  /**
   * The sites whose sitemaps this run read: files read, the site's pages they listed, how many of
   * those were new to the frontier, the files that could not be read or are not sitemaps, and
   * whether one failed for now (the next crawl reads the site's sitemaps again)
   */
  sitemaps: { site: string; files: number; pages: number; queued: number; problems: readonly string[]; again: boolean }[];
  /** every site with pages left queued, by why they were not fetched */
  left: SiteLeft[];
  maxLevel: number;
  /** pages not fetched because their host's certificate is not accepted, and the last of them (`url: problem`) */
  untrusted: number;
  lastUntrusted: string | null;
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
  const scheduler = new Scheduler(listSites(db), s);
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
    settings: s, scopes: siteScopes(db, s), params: loadParamRules(db), resolve: o.resolve, proxy: o.proxy, gate, analysers: s.concurrency, focus: s.focus !== null,
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
  const held = {
    // Held, or another host of the site than its own backs off after a failure: the site goes on
    // with its other hosts meanwhile. Its own host it waits for at the gate, as before (its failing
    // page, due again when the pause ends, must not come before the host's other pages); with one
    // worker alone, the order must not depend on timing either.
    retryAt: (page: FrontierPage) => {
      const u = new URL(page.url);
      const now = Date.now();
      const own = u.host === new URL(scheduler.state.sites.get(page.siteId)!.url).host;
      const backsOff = !solo && !own && gate.state(u.host).failures > 0 ? gate.waitMs(u.host) : 0;
      return holds.retryAt(u.origin, now) ?? (backsOff > 0 ? now + backsOff : null);
    },
    putOff: (page: FrontierPage, at: number) => writer.putOffOrigin(page.siteId, new URL(page.url).origin, at),
  };
  scheduler.open(queues, queuedFate, (host) => coordinator.hostWait(host), solo, held);
  const { state, choice } = scheduler;
  o.onStart?.({ totalPulls: state.totalPulls, distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, siteCounts: () => choice.siteCounts() });
  // A worker's error (a full disk) stops the others before the reader closes: left running, they
  // would find its connections closed and take that for the network.
  const failed = new AbortController();
  const run = new CrawlRun({ ...o, signal: AbortSignal.any([o.signal, failed.signal]) }, scheduler, coordinator, reader, writer, hostsLog, holds);
  try {
    await run.pendingSitemaps();
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
  private failedForNow = 0;
  private lastFailure: string | null = null;
  private cause: string | null = null;
  /** the end of the last pull stored (or the run's start): a waiting run counts from it */
  private lastProgress = Date.now();
  private pullsSeen = 0;
  /** page id → its attempts that failed for now in this run */
  private tries = new Map<number, number>();
  /** origin → pages in a row that failed for now on it in this run (each page once) */
  private streaks = new Map<string, number>();
  /** origin, and host (the gate backs off per host) → its last failure for now in this run, in a few words */
  private causes = new Map<string, string>();
  private untrusted = 0;
  private lastUntrusted: string | null = null;
  /** the sites whose sitemaps this run read, with what they gave */
  private sitemapReads: CrawlSummary['sitemaps'] = [];
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
          o.onWait?.({ sites: failing.sites + inFlight, cause: this.cause ?? 'failed for now', nextTryMs: failing.soonest, givesUpAt });
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
    if (c.page === 'put-off') return this.untrustedHost(page, site, origin, certificateIn(result.error)!, c);
    const hostState = coordinator.gate.state(host);
    if (c.page === 'failed-for-now') {
      const after = this.keepForLater(page, site, host, origin, result, outcome, closed, robotsUntil);
      if (after === null) return false;
      c = after;
    } else if (c.host === 'answered') {
      this.reached++;
      site.failures = 0;
      result.siteFailures = 0;
      this.streaks.delete(origin);
      this.holds.release(origin);
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
    if (this.wantsSitemaps(site)) await this.readSitemaps(site);
    return true;
  }

  /** Sites pulled before their sitemaps were wanted (sitemaps turned on later, a stopped read): read them first. */
  async pendingSitemaps(): Promise<void> {
    for (const site of this.state.sites.values()) {
      if (this.o.signal.aborted || this.state.budgetSpent()) return;
      if (site.pulls > 0 && this.wantsSitemaps(site)) await this.readSitemaps(site);
    }
  }

  private wantsSitemaps(site: Site): boolean {
    return site.unavailable === null && site.sitemapsRead === null && (site.sitemaps ?? this.s.sitemaps) === 'yes';
  }

  /**
   * After a site's first pull (its start page, robots.txt read): queue the pages its sitemaps list
   * (net/sitemaps.ts), once per site; the site is in flight meanwhile, so no page of it is pulled. Not
   * pulls: no budget spent. Stopped midway: nothing stored, read again on resume.
   */
  private async readSitemaps(site: Site): Promise<void> {
    site.sitemapsRead = 'reading';
    let found;
    try {
      found = await this.reader.sitemaps(site.id, site.url, this.o.signal);
    } catch (err) {
      site.sitemapsRead = null;
      if (this.o.signal.aborted || err instanceof HostBusy) return;
      throw err;
    }
    const queued = this.writer.sitemapPages(site.id, found);
    this.sitemapReads.push({ site: site.short ?? site.url, files: found.files, pages: found.pages.length, queued, problems: found.problems, again: found.again });
    site.sitemapsRead = new Date().toISOString();
    this.choice.scoreSite(site.id);
  }

  /**
   * A pull that failed for now (net/failure-rule.ts): the page stays queued, asked again after its
   * host's back-off (or a Retry-After), until it has failed retry-attempts times over retry-span;
   * then it is a permanent error (the consequence returned: the caller commits it; null: kept for
   * later). The host is held meanwhile as the rule says, never the site: the site's pages on other
   * hosts go on (net/host-holds.ts). A start page that waits past this run makes its site Not
   * Available in this run; the next run tries it again.
   */
  private keepForLater(page: FrontierPage, site: Site, host: string, origin: string, result: PullResult, outcome: Outcome, closed: number | null, robotsUntil: number | null): Consequence | null {
    const { s, coordinator, writer } = this;
    const why = result.error ?? `HTTP ${result.httpStatus}`;
    this.failedForNow++;
    this.lastFailure = `${page.url}: ${why}`;
    this.cause = failureCause(result.error, result.httpStatus, this.o.proxy);
    this.causes.set(origin, this.cause).set(host, this.cause);
    // Only a page failing for the first time adds to a streak: a page that failed in an earlier
    // run is asked again first, and alone it would hold its host again.
    const failedBefore = (page.attempts ?? 0) > 0;
    const failures = failuresInARow(site.failures, failedBefore);
    const before = this.streaks.get(origin) ?? 0;
    const streak = failuresInARow(before, failedBefore);
    this.streaks.set(origin, streak);
    const hostState = coordinator.gate.state(host);
    const now = Date.now();
    const rule = { attempts: s['retry-attempts'], spanMs: s['retry-span'] };
    const tries = (this.tries.get(page.id) ?? 0) + 1;
    this.tries.set(page.id, tries);
    // the host's back-off, a Retry-After (the gate's pause) at least
    // the server asked for longer than a run waits: the page is due when the server said
    const wait = Math.max(
      retryWaitMs(tries, rule, backoffMs(hostState.failures, hostState.delayMs, coordinator.gate.waitMs(host), s['max-backoff'])),
      closed === null ? 0 : closed - now,
    );
    let d = afterFailure({ attempts: page.attempts ?? 0, firstFailedAt: page.firstFailedAt ?? null }, now, rule, wait);
    if (d.kind === 'permanent' && !mayFailForGood(this.reached > 0, s['retry-span'])) {
      d = { kind: 'retry', attempts: d.attempts, firstFailedAt: page.firstFailedAt ?? now, retryAt: now + wait };
    }
    site.failures = failures;
    const c = consequence(outcome, { retriesSpent: d.kind === 'permanent', inARow: givesUp(before, streak, s['give-up-after']) });
    if (c.hold !== null) {
      const [retryAt, cause] =
        c.hold === 'paused' ? [now, `${counted(streak, 'page')} in a row failed for now, the last with ${this.cause}`]
        : c.hold === 'asked-to-wait' ? [closed!, `asked not to be asked before ${clockTime(closed!, now)} (Retry-After; max-backoff is ${s['max-backoff']} ms)`]
        : [robotsUntil!, this.cause.startsWith('robots.txt') ? this.cause : `robots.txt: ${this.cause}`];
      this.holds.hold(origin, { kind: c.hold, until: c.host === 'held-for-run' ? Infinity : retryAt, retryAt, cause });
    }
    if (d.kind === 'permanent') {
      result.siteFailures = failures;
      return c;
    }
    if (!coordinator.holds(page)) return null;
    writer.defer(page, d, failures);
    const pastRun = () => !this.scheduler.waitsInRun(Math.max(d.retryAt, this.holds.retryAt(origin, now) ?? 0) - now);
    if (page.level === 0 && (c.site === 'not-available-in-run' || (c.site === 'not-available-if-past-run' && pastRun()))) {
      site.unavailable = `start page failed for now (${d.attempts} attempts, last: ${why}); tried again by the next crawl`;
      writer.giveUp(site.id, site.unavailable);
    }
    this.choice.forget(site.id);
    return null;
  }

  /**
   * A certificate the machine does not accept: waiting does not change it, so the host is held for
   * the run, its pages stay queued (no attempt: nothing was asked of the page) and a later run tries
   * again, or one with check-certificate no crawls it. A start page's site is Not Available in this run.
   */
  private untrustedHost(page: FrontierPage, site: Site, origin: string, certificate: string, c: Consequence): false {
    const now = Date.now();
    this.untrusted++;
    this.lastUntrusted = `${page.url}: ${certificate}`;
    this.holds.hold(origin, { kind: c.hold!, until: Infinity, retryAt: now, cause: certificate });
    if (!this.coordinator.holds(page)) return false;
    this.writer.putOffOrigin(site.id, origin, this.holds.retryAt(origin, now)!);
    if (page.level === 0 && c.site === 'not-available-in-run') {
      site.unavailable = `start page not fetched: ${certificate} (${origin}); tried again by the next crawl, or crawl with --no-check-certificate`;
      this.writer.giveUp(site.id, site.unavailable);
    }
    this.choice.forget(site.id);
    return false;
  }

  /** Called after the coordinator's finish: the totals are the whole crawl's; `left`: every site's queued pages. */
  summary(started: number, waiting: { total: number; bySite: Map<number, number>; earliest: number | null }, left: Map<number, QueuedLeft>): CrawlSummary {
    const { o, s, state, writer } = this;
    const holds = this.holds.all(Date.now());
    const stopped: CrawlSummary['stopped'] = [];
    const sitesLeft: SiteLeft[] = [];
    for (const x of state.sites.values()) {
      const name = x.short ?? x.url;
      const why = x.unavailable === null ? null : NOT_NOW.test(x.unavailable) ? `not available in this run: ${x.unavailable}` : `not available: ${x.unavailable} (beebot seeds retry tries it again)`;
      if (why) stopped.push({ site: name, why });
      const l = left.get(x.id);
      if (!l) continue;
      const hosts = [...l.waiting]
        .map(([origin, w]) => ({
          origin, pages: w.pages, earliest: w.earliest, nextRun: holds.get(origin)?.until === Infinity,
          cause: holds.get(origin)?.cause ?? this.causes.get(origin) ?? this.causes.get(new URL(origin).host) ?? 'failed for now in an earlier run',
        }))
        .sort((a, b) => b.pages - a.pages);
      const waitingPages = hosts.reduce((n, h) => n + h.pages, 0);
      sitesLeft.push({ site: name, unavailable: why !== null, capped: state.capped(x), queued: l.queued, beyondLevel: l.beyondLevel, hosts, due: l.queued - l.beyondLevel - waitingPages });
    }
    let reason = this.reason;
    if (o.signal.aborted) reason = 'interrupted';
    else if (s.budget !== null && state.totalPulls >= s.budget) reason = 'budget';
    return {
      reason, pulls: this.pulls, rewards: this.rewards, newUrls: this.newUrls, newHosts: this.newHosts,
      distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, mode: s.reward, totalPulls: state.totalPulls, budget: s.budget,
      seconds: (Date.now() - started) / 1000, sites: this.siteCounts(), ...politenessBound(this.pagesPerHost, this.coordinator.gate, s.concurrency),
      reached: this.reached, failedForNow: this.failedForNow, lastFailure: this.lastFailure, cause: this.cause,
      waiting: waiting.total, waitingSites: waiting.bySite.size, earliestRetry: waiting.earliest, stopped, left: sitesLeft, maxLevel: s['max-level'],
      sitemaps: this.sitemapReads, untrusted: this.untrusted, lastUntrusted: this.lastUntrusted,
    };
  }
}

/** A Not Available reason of this run only: the next crawl tries the site again. */
const NOT_NOW = /^start page (failed for now|not fetched: certificate) /;

/** The wall time politeness alone forces: no crawl of these pages can be faster. */
function politenessBound(pagesPerHost: Map<string, number>, gate: HostGate, workers: number) {
  let busiest: CrawlSummary['busiestHost'] = null;
  let total = 0;
  for (const [host, pages] of pagesPerHost) {
    const delayMs = gate.delayOf(host);
    total += (pages - 1) * delayMs;
    if (!busiest || pages * delayMs > busiest.pages * busiest.delayMs) busiest = { host, pages, delayMs };
  }
  const one = busiest ? ((busiest.pages - 1) * busiest.delayMs) / 1000 : 0;
  return { lowerBoundSeconds: Math.max(one, total / 1000 / Math.max(1, workers)), busiestHost: busiest };
}
