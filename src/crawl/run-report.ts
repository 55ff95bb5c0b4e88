// What a crawl run reports: each pull as it is stored, where the run starts from, and its summary at the end.
import type { Rewards } from '../schedule/sites/reward.js';
import type { SiteCounts } from '../schedule/page-choice.js';
import type { QueuedLeft } from '../store/frontier.js';
import type { Site } from '../store/sites.js';
import type { PullResult } from '../pull/pull-record.js';
import type { HostGate } from '../net/host-gate.js';
import type { HostHold } from '../net/host-holds.js';

export type { SiteCounts } from '../schedule/page-choice.js';

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

/** Where the crawl starts from: the pages fetched before this run (0: a new crawl). */
export type StartEvent = Pick<PullEvent, 'totalPulls' | 'distinctUrls' | 'distinctHosts' | 'siteCounts'>;

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

/** Why each site that did not run to its end stopped, and every site's queued pages by why they were left. */
export function sitesAtEnd(
  sites: Iterable<Site>,
  left: Map<number, QueuedLeft>,
  holds: ReadonlyMap<string, HostHold>,
  /** origin or host -> its last failure for now in this run */
  causes: ReadonlyMap<string, string>,
  capped: (site: Site) => boolean,
): { stopped: CrawlSummary['stopped']; left: SiteLeft[] } {
  const stopped: CrawlSummary['stopped'] = [];
  const sitesLeft: SiteLeft[] = [];
  for (const x of sites) {
    const name = x.short ?? x.url;
    const l = left.get(x.id);
    // Not Available with its start page still queued: the next crawl opens it again (store/sites.ts reopenSites).
    const why = x.unavailable === null ? null : l?.startQueued ? `not available in this run: ${x.unavailable}` : `not available: ${x.unavailable} (beebot seeds retry tries it again)`;
    if (why) stopped.push({ site: name, why });
    if (!l) continue;
    const hosts = [...l.waiting]
      .map(([origin, w]) => ({
        origin, pages: w.pages, earliest: w.earliest, nextRun: holds.get(origin)?.until === Infinity,
        cause: holds.get(origin)?.cause ?? causes.get(origin) ?? causes.get(new URL(origin).host) ?? 'failed for now in an earlier run',
      }))
      .sort((a, b) => b.pages - a.pages);
    const waitingPages = hosts.reduce((n, h) => n + h.pages, 0);
    sitesLeft.push({ site: name, unavailable: why !== null, capped: capped(x), queued: l.queued, beyondLevel: l.beyondLevel, hosts, due: l.queued - l.beyondLevel - waitingPages });
  }
  return { stopped, left: sitesLeft };
}

/** The wall time politeness alone forces: no crawl of these pages can be faster. */
export function politenessBound(pagesPerHost: Map<string, number>, gate: HostGate, workers: number) {
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
