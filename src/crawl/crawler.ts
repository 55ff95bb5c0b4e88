import { setTimeout as sleep } from 'node:timers/promises';
import type { Policy } from '../schedule/sites/policy.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import type { SiteCounts } from '../schedule/page-choice.js';
import type { Db } from '../db/db.js';
import type { PullResult } from '../pull/pull-record.js';
import type { Settings } from '../store/settings.js';
import type { Site } from '../store/sites.js';
import { failed, startPageProblem } from '../net/pull-result.js';
import { FailedPulls } from './failed-pulls.js';
import { SitemapReads } from './sitemap-reads.js';
import { RunTally } from './run-tally.js';
import { runSummary } from './run-summary.js';
import { closeRun, openRun, type RunParts, type RunSetup } from './run-parts.js';
import type { CrawlSummary, PullEvent, StartEvent, StopReason } from './run-report.js';
import { consequence, outcomeOf } from '../net/failure-rule.js';
import { failingWait, patienceMs, waitedOut, type WaitState } from '../net/waiting.js';
import { certificateIn } from '../net/certificate.js';
import { pickedFate } from '../page/link-fate.js';

export interface CrawlOptions extends RunSetup {
  policy: Policy;
  signal: AbortSignal;
  onPull?: (e: PullEvent) => void;
  /** Once the stored crawl is learned, before the first pull. */
  onStart?: (e: StartEvent) => void;
  /** No site can go on but after a failure passes: why, and what happens next (called at each wait). */
  onWait?: (w: WaitState) => void;
}

/**
 * The crawl: C workers, each asks the policy for a site when it is free, fetches that site's
 * next page, and commits everything the page gave in one transaction. All state lives in the
 * database, so a rerun continues where a stopped or killed run left off.
 */
export async function crawl(db: Db, o: CrawlOptions): Promise<CrawlSummary> {
  const started = Date.now();
  const parts = await openRun(db, o);
  const { scheduler: { state, choice }, writer, coordinator } = parts;
  o.onStart?.({ totalPulls: state.totalPulls, distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, siteCounts: () => choice.siteCounts() });
  // A worker's error (a full disk) stops the others before the reader closes: left running, they
  // would find its connections closed and take that for the network.
  const failed = new AbortController();
  const run = new CrawlRun({ ...o, signal: AbortSignal.any([o.signal, failed.signal]) }, parts);
  try {
    await run.sitemaps.pending();
    const workers = Array.from({ length: Math.max(1, o.settings.concurrency) }, () => run.worker());
    await Promise.all(workers).catch(async (err: unknown) => {
      failed.abort(err);
      await Promise.allSettled(workers);
      throw err;
    });
  } finally {
    run.wake();
    await closeRun(parts);
  }
  coordinator.finish();
  return run.summary(db, started);
}

/** The workers' loop and one pull, with what the run counts (run-tally.ts) and when it last got on. */
class CrawlRun {
  private reason: StopReason = 'exhausted';
  private tally = new RunTally();
  /** the end of the last pull stored (or the run's start): a waiting run counts from it */
  private lastProgress = Date.now();
  private pullsSeen = 0;
  private failures: FailedPulls;
  readonly sitemaps: SitemapReads;
  private waiters: (() => void)[] = [];
  private s: Settings;
  private state: Scheduler<Site>['state'];
  private choice: Scheduler<Site>['choice'];

  constructor(
    private o: CrawlOptions,
    private parts: RunParts,
  ) {
    const { scheduler, coordinator, reader, writer, holds } = parts;
    this.s = o.settings;
    this.state = scheduler.state;
    this.choice = scheduler.choice;
    this.failures = new FailedPulls(this.s, o.proxy, scheduler, coordinator, writer, holds, () => this.tally.reached > 0);
    this.sitemaps = new SitemapReads(this.s, o.signal, this.state, this.choice, reader, writer);
    o.signal.addEventListener('abort', this.wake, { once: true });
  }

  readonly wake = (): void => this.waiters.splice(0).forEach((r) => r());

  private siteCounts = (): SiteCounts => this.choice.siteCounts();

  /** One worker: pick a site, take its next page, pull it; until interrupted, the budget is spent or no site has a page left. */
  async worker(): Promise<void> {
    const { o, s, state, choice } = this;
    const { coordinator } = this.parts;
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
      const patience = patienceMs(this.tally.reached > 0, s['max-backoff'], s['retry-span']);
      if (waitedOut(Date.now(), this.lastProgress, patience) && this.failing() !== null) {
        // Only failing sites are left and the run waited for them long enough: it ends once the pulls in flight do.
        if (state.inFlight.size === 0) return void (this.reason = 'waiting');
        await this.idle(null);
        continue;
      }
      const id = this.parts.scheduler.next(o.policy);
      if (id === null) {
        let wait = coordinator.idleWait(choice.soonestDelay());
        if (state.inFlight.size === 0 && wait === null) return; // nothing open or pending: every site is exhausted
        const failing = this.failing();
        if (failing) {
          // never silent: why nothing is fetched, and until when the run waits
          let inFlight = 0;
          for (const id of state.inFlight.keys()) if ((state.sites.get(id)?.failures ?? 0) > 0) inFlight++;
          const w = failingWait(failing, inFlight, this.failures.cause, this.lastProgress + patience, wait, Date.now());
          o.onWait?.(w.state);
          wait = w.sleepMs;
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
    const gate = this.parts.coordinator.gate;
    return this.choice.failing((host) => gate.state(host).failures > 0 || gate.closedUntil(host) !== null);
  }

  /** Until a pull ends (or an abort), or at most `ms`. */
  private async idle(ms: number | null): Promise<void> {
    const woken = new Promise<void>((r) => this.waiters.push(r));
    await (ms === null ? woken : Promise.race([woken, sleep(ms)]));
  }

  /** Fetch one page and commit it; false when nothing was pulled (robots.txt, abandoned). */
  private async pull(page: FrontierPage): Promise<boolean> {
    const { o, s, state } = this;
    const { coordinator, writer } = this.parts;
    const site = state.sites.get(page.siteId)!;
    const host = new URL(page.url).host;
    const robots = await this.parts.reader.robots(page.url, o.signal);
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
      const read = await this.parts.reader.read(page, o.signal);
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
      this.tally.reached++;
      site.failures = 0;
      result.siteFailures = 0;
      this.failures.answered(origin);
    }
    if (page.level === 0 && result.unavailable === null && c.site === 'not-available') result.unavailable = startPageProblem(result);
    // A worker stalled past its lease has lost the page to another, which stores it.
    if (!coordinator.holds(page)) return false;
    const stored = writer.commit(result);
    const { seq, reward } = stored;
    // a page stored, even as failed for good, is the crawl going on: a waiting run counts from it
    this.lastProgress = Date.now();
    this.parts.hostsLog.state(host, hostState.delayMs, hostState.failures, hostState.pausedUntil);
    if (result.unavailable) site.unavailable = result.unavailable;
    coordinator.committed(site, page, result, seq, reward);
    this.tally.stored(host, stored);
    this.choice.forget(site.id);
    o.onPull?.({
      seq, site, url: page.url, level: page.level, status: result.status, httpStatus: result.httpStatus,
      error: result.error ?? result.unavailable, reward, rewards: stored.rewards, totalPulls: state.totalPulls,
      distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, siteCounts: this.siteCounts,
    });
    await this.sitemaps.after(site);
    return true;
  }

  /** After the coordinator's finish (run-summary.ts). */
  summary(db: Db, started: number): CrawlSummary {
    const { reason, tally, failures } = this;
    return runSummary(db, this.s, this.parts, { started, reason, aborted: this.o.signal.aborted, tally, failures, sitemaps: this.sitemaps.read });
  }
}
