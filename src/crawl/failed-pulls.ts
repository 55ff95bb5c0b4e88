import type { FrontierPage } from '../schedule/queued-page.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { PullResult } from '../pull/pull-record.js';
import type { PullWriter } from '../store/pull-writer.js';
import type { Settings } from '../store/settings.js';
import type { Site } from '../store/sites.js';
import { afterFailure, backoffMs, consequence, failuresInARow, givesUp, mayFailForGood, retryWaitMs, type Consequence, type Outcome } from '../net/failure-rule.js';
import type { HostHolds } from '../net/host-holds.js';
import { clockTime, failureCause } from '../net/waiting.js';
import { counted } from '../markup/counted.js';
import type { Coordinator } from './coordinator.js';

/**
 * What a run does with a pull that was not an answer (net/failure-rule.ts says what it means):
 * the page kept for later or failed for good, its origin held, a start page's site made Not
 * Available; and what the run remembers of it (streaks per origin, tries per page, causes) for
 * its waits and its summary.
 */
export class FailedPulls {
  failedForNow = 0;
  lastFailure: string | null = null;
  /** the last failure for now in a few words (net/waiting.ts failureCause) */
  cause: string | null = null;
  untrusted = 0;
  lastUntrusted: string | null = null;
  /** origin, and host (the gate backs off per host) → its last failure for now in this run, in a few words */
  readonly causes = new Map<string, string>();
  /** page id → its attempts that failed for now in this run */
  private tries = new Map<number, number>();
  /** origin → pages in a row that failed for now on it in this run (each page once) */
  private streaks = new Map<string, number>();

  constructor(
    private s: Settings,
    private proxy: string | null,
    private scheduler: Scheduler<Site>,
    private coordinator: Coordinator,
    private writer: PullWriter,
    private holds: HostHolds,
    /** whether some page of this run reached its server */
    private reachedSome: () => boolean,
  ) {}

  /** The origin answered: its streak ends. */
  answered(origin: string): void {
    this.streaks.delete(origin);
    this.holds.release(origin);
  }

  /**
   * A pull that failed for now: the page stays queued, asked again after its host's back-off (or a
   * Retry-After), until it has failed retry-attempts times over retry-span; then it is a permanent
   * error (the consequence returned: the caller commits it; null: kept for later). The host is held
   * meanwhile as the rule says, never the site: the site's pages on other hosts go on
   * (net/host-holds.ts). A start page that waits past this run makes its site Not Available in
   * this run; the next run tries it again.
   */
  keepForLater(page: FrontierPage, site: Site, host: string, origin: string, result: PullResult, outcome: Outcome, closed: number | null, robotsUntil: number | null): Consequence | null {
    const { s, coordinator, writer } = this;
    const why = result.error ?? `HTTP ${result.httpStatus}`;
    this.failedForNow++;
    this.lastFailure = `${page.url}: ${why}`;
    this.cause = failureCause(result.error, result.httpStatus, this.proxy);
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
    if (d.kind === 'permanent' && !mayFailForGood(this.reachedSome(), s['retry-span'])) {
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
    this.scheduler.choice.forget(site.id);
    return null;
  }

  /**
   * A certificate the machine does not accept: waiting does not change it, so the host is held for
   * the run, its pages stay queued (no attempt: nothing was asked of the page) and a later run tries
   * again, or one with check-certificate no crawls it. A start page's site is Not Available in this run.
   */
  untrustedHost(page: FrontierPage, site: Site, origin: string, certificate: string, c: Consequence): false {
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
    this.scheduler.choice.forget(site.id);
    return false;
  }
}
