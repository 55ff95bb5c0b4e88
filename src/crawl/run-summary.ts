import type { Db } from '../db/db.js';
import { queuedLeft, waitingPages } from '../store/frontier.js';
import type { Settings } from '../store/settings.js';
import type { FailedPulls } from './failed-pulls.js';
import type { RunParts } from './run-parts.js';
import { politenessBound, sitesAtEnd, type CrawlSummary, type StopReason } from './run-report.js';
import type { RunTally } from './run-tally.js';

/** What a run knows of itself at its end, besides its parts. */
export interface RunEnd {
  started: number;
  /** why the last worker stopped */
  reason: StopReason;
  aborted: boolean;
  tally: RunTally;
  failures: FailedPulls;
  sitemaps: CrawlSummary['sitemaps'];
}

/**
 * Why a run stopped: an interruption or a spent budget (the whole crawl's, which another worker
 * may have spent) wins over the reason the workers ended on.
 */
export function stopReason(workers: StopReason, aborted: boolean, budget: number | null, totalPulls: number): StopReason {
  if (aborted) return 'interrupted';
  if (budget !== null && totalPulls >= budget) return 'budget';
  return workers;
}

/** The run's summary, after the coordinator's finish: the totals are the whole crawl's, what is left every site's. */
export function runSummary(db: Db, s: Settings, { scheduler: { state, choice }, writer, coordinator, holds }: RunParts, r: RunEnd): CrawlSummary {
  const waiting = waitingPages(db);
  const left = queuedLeft(db, s['max-level']);
  const { tally, failures } = r;
  const { stopped, left: sitesLeft } = sitesAtEnd(state.sites.values(), left, holds.all(Date.now()), failures.causes, (x) => state.capped(x));
  return {
    reason: stopReason(r.reason, r.aborted, s.budget, state.totalPulls), pulls: tally.pulls, rewards: tally.rewards, newUrls: tally.newUrls, newHosts: tally.newHosts,
    distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, mode: s.reward, totalPulls: state.totalPulls, budget: s.budget,
    seconds: (Date.now() - r.started) / 1000, sites: choice.siteCounts(), ...politenessBound(tally.pagesPerHost, coordinator.gate, s.concurrency),
    reached: tally.reached, failedForNow: failures.failedForNow, lastFailure: failures.lastFailure, cause: failures.cause,
    waiting: waiting.total, waitingSites: waiting.bySite.size, earliestRetry: waiting.earliest, stopped, left: sitesLeft, maxLevel: s['max-level'],
    sitemaps: r.sitemaps, untrusted: failures.untrusted, lastUntrusted: failures.lastUntrusted,
  };
}
