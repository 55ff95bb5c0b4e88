import type { Clock } from '../time/clock.js';
import type { Arm, Policy } from '../bandit/policy.js';
import { randomFor } from '../bandit/random.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/db.js';
import { PullWriter } from '../store/pull-writer.js';
import type { PullResult } from '../store/pull-record.js';
import { KnownExternal } from '../store/known-external.js';
import { Frontier, type FrontierPage } from '../store/frontier.js';
import type { Settings } from '../store/settings.js';
import { listSites, recountRewards, type Site } from '../store/sites.js';
import type { Rewards } from '../bandit/reward.js';
import { HostGate } from './host-gate.js';
import { SharedHostGate } from './shared-host-gate.js';
import { SharedCrawl } from '../store/shared-crawl.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { PageReader } from './page-reader.js';
import { startPageProblem } from './pull-result.js';
import { DeadEnds, pullOutcome } from './dead-ends.js';
import { CrawlOrder } from './crawl-order.js';
import { Topic } from '../focus/topic.js';
import { termCounts } from '../focus/terms.js';
import { RESCORE_EVERY } from '../order/priority.js';
import { rescoreQueued } from '../store/priorities.js';
import { PolitenessWriter } from '../store/politeness.js';


export interface CrawlOptions {
  settings: Settings;
  /** Store links again that a user deleted (`links delete`). */
  allowReadd?: boolean;
  policy: Policy;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  signal: AbortSignal;
  onPull?: (e: PullEvent) => void;
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

export interface SiteCounts {
  /** pages left (or in flight) */
  crawling: number;
  /** no page left up to max-level, or max-pages-per-site reached */
  exhausted: number;
  unavailable: number;
}

export type StopReason = 'budget' | 'exhausted' | 'interrupted';

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
}

/**
 * The crawl loop: C workers, each asks the policy for a site when it is free, fetches that
 * site's next breadth-first page, and commits everything the page gave in one transaction.
 * All state lives in the database, so a rerun continues where a stopped or killed run left off.
 */
export async function crawl(db: Db, o: CrawlOptions): Promise<CrawlSummary> {
  const started = Date.now();
  const s = o.settings;
  // The sites' reward sums follow the mode in force (a database may change it between runs).
  recountRewards(db, s.reward);
  const sites = new Map(listSites(db).map((x) => [x.id, x]));
  const indexText = s['index-text'] === 'yes';
  // A focused crawl scores every page against the topic, whatever the order (bfs too: its harvest rate is measured).
  const topic = s.focus === null ? null : new Topic(termCounts(s.focus), s['focus-threshold']);
  const order = s.order === 'bfs' && !topic ? null : new CrawlOrder(s.order, topic);
  // PostgreSQL: this process is one worker of a crawl others may share (shared-crawl.ts). A lease
  // outlasts the longest a page can take (every retry timing out), so it never runs out under a live worker.
  const leaseMs = s['page-timeout'] * (s.retries + 1) + 5_000;
  const shared = db.kind === 'pg' ? new SharedCrawl(db, `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`, leaseMs) : null;
  shared?.recountBudget();
  const frontier = new Frontier(db, order !== null, shared !== null);
  const writer = new PullWriter(db, {
    allowReadd: o.allowReadd ?? false, maxQueryVariants: s['max-query-variants'], reward: s.reward, order: order ?? undefined,
    indexText, now: o.clock ? () => o.clock!.now() : undefined,
  });
  const hostsLog = new PolitenessWriter(db);
  const gateOptions = { delayMs: s.delay, maxBackoffMs: s['max-backoff'] };
  const gate = shared ? new SharedHostGate(gateOptions, shared, s['page-timeout'] + 5_000) : new HostGate(gateOptions);
  const reader = await PageReader.open(db, {
    settings: s, resolve: o.resolve, proxy: o.proxy, gate, analysers: s.concurrency, focus: topic !== null,
    onRobots: (r) => {
      const host = new URL(r.origin).host;
      const summary = r.rules.kind === 'parsed' ? r.rules.summary : r.rules.reason;
      const asked = r.rules.kind === 'parsed' && r.rules.crawlDelay !== null ? r.rules.crawlDelay * 1000 : null;
      hostsLog.robots(host, gate.delayOf(host), asked, r.clamped, summary);
    },
  });
  const pagesPerHost = new Map<string, number>();

  const history: number[] = [];
  const rewards = new Map<number, number[]>([...sites.keys()].map((id) => [id, []]));
  const deadEnds = new DeadEnds(s['dead-end-after']);
  const rewardColumn = `coalesce(f.reward_${s.reward}, f.reward)`; // NULL: pulled before schema 5, under 'pairs'
  const pullColumns = `f.seq, f.site_id, ${rewardColumn}, p.url, p.status, f.http_status, p.anchor, p.cues, p.terms, f.page_id FROM fetches f JOIN pages p ON p.id = f.page_id`;
  const stored = db.prepare(`SELECT ${pullColumns} WHERE f.seq > ? ORDER BY f.seq`);
  type Pull = [number, number, number, string, string, number | null, string | null, string | null, string | null, number];
  let lastSeq = 0;
  // Shared: workers commit in any order, so a seq below one already read may still come; kept
  // here until it does (or for a minute: a rolled-back pull never does).
  const missing = new Map<number, number>();
  const storedMissing = shared ? db.prepare(`SELECT ${pullColumns} WHERE f.seq = ANY(?::bigint[]) ORDER BY f.seq`) : null;
  const mine = new Set<number>(); // this worker's pulls: its writer knows their links already
  const theirLinks = shared ? db.prepare(`SELECT site_id, key, host FROM external_links WHERE page_id = ANY(?::bigint[])`) : null;
  /** Completed pulls after lastSeq, in crawl order: at the start, and in a shared crawl the other workers' ones too. */
  const learnPulls = (start = false) => {
    // streamed: a resumed crawl may have millions of pulls
    const rows = (storedMissing && missing.size
      ? [...(storedMissing.raw().all(`{${[...missing.keys()].join(',')}}`) as Pull[]), ...(stored.raw().all(lastSeq) as Pull[])]
      : stored.raw().iterate(lastSeq)) as Iterable<Pull>;
    const theirs: number[] = [];
    for (const [seq, siteId, reward, url, status, http, anchor, cues, terms, pageId] of rows) {
      history.push(siteId);
      rewards.get(siteId)?.push(reward);
      deadEnds.record(siteId, url, pullOutcome(status, http));
      order?.relearn(siteId, url, anchor, cues, reward, terms);
      if (!shared || start) lastSeq = seq;
      else if (!missing.delete(seq) && seq > lastSeq) {
        for (let gap = lastSeq + 1; gap < seq; gap++) missing.set(gap, Date.now());
        lastSeq = seq;
      }
      if (shared && !start && !mine.delete(seq)) theirs.push(pageId);
    }
    for (const [seq, since] of missing) if (Date.now() - since > 60_000) missing.delete(seq);
    // The external links other workers stored: so that this worker's rewards count only links new to the crawl.
    if (theirLinks && theirs.length) {
      for (const [site, key, host] of theirLinks.raw().iterate(`{${theirs.join(',')}}`) as Iterable<[number, string, string]>) writer.known.mark(site, writer.known.ask(site, key, host));
    }
  };
  learnPulls(true);
  // Ordered crawls: queued pages without a priority (start pages, pages a breadth-first run
  // queued) get one; the others keep theirs, as an uninterrupted crawl would have.
  const rescored = new Map<number, number>(); // site id → its pull count at the last re-scoring
  if (order) for (const x of sites.values()) rescoreQueued(db, x.id, order.prioritize, true);
  let totalPulls = history.length;
  const inFlight = new Map<number, number>(); // site id → page id (one page per site at a time)
  // What the policy sees as history: completed pulls in crawl order (from the database), then
  // this run's picks in pick order (in-flight ones count as pulled). With one worker the two
  // orders are the same, so a resumed crawl sees exactly what an uninterrupted one saw.
  const picks = history;
  // Shared: other workers are fetching too, so a site whose host is busy is skipped, as with several pullers here.
  const oneAtATime = s.concurrency <= 1 && !shared;
  let heldHosts = new Map<string, number>(); // shared: hosts in another worker's request or delay → ms left
  const nextPage = new Map<number, FrontierPage | undefined>();
  /**
   * A shared crawl: what every worker has done so far, from the database, before each pick. The
   * pulls and their rewards in commit order, the sites' statistics; a site's next page may have
   * been taken meanwhile.
   */
  const syncShared = () => {
    if (!shared) return;
    learnPulls();
    totalPulls = history.length;
    for (const x of listSites(db)) {
      const site = sites.get(x.id);
      if (site) Object.assign(site, { pulls: x.pulls, rewardSum: x.rewardSum, rewardMax: x.rewardMax, unavailable: x.unavailable });
    }
    nextPage.clear();
    heldHosts = shared.heldHosts();
  };
  const pageFor = (id: number) => {
    if (!nextPage.has(id)) {
      const pulls = sites.get(id)!.pulls;
      // Re-score every RESCORE_EVERY pulls, and after a page that paid far above the site's mean
      // (its words just became worth following).
      const last = rewards.get(id)!.at(-1) ?? 0;
      if (order && pulls > 0 && (pulls % RESCORE_EVERY === 0 || order.surprise(id, last)) && rescored.get(id) !== pulls) {
        rescoreQueued(db, id, order.prioritize);
        rescored.set(id, pulls);
      }
      const next = () => frontier.nextPage(id, s['max-level']);
      let page = next();
      // A link of a dead-end class (dead-ends.ts) is stored as skipped, never pulled.
      for (let why; page && (why = deadEnds.verdict(id, page.url)); page = next()) writer.skip(page, 'skipped', why);
      nextPage.set(id, page);
    }
    return nextPage.get(id);
  };
  let runPulls = 0;
  const runRewards: Rewards = { urls: 0, hosts: 0, pairs: 0 };
  let runNewUrls = 0;
  let runNewHosts = 0;
  let reason: StopReason = 'exhausted';
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((r) => r());
  o.signal.addEventListener('abort', wake, { once: true });

  const arms = (): Arm[] =>
    [...sites.values()].map((x) => ({
      id: x.id,
      pulls: x.pulls + (inFlight.has(x.id) ? 1 : 0),
      rewardSum: x.rewardSum,
      rewardMax: x.rewardMax,
      rewards: rewards.get(x.id)!,
      open: x.unavailable === null && !inFlight.has(x.id) && !capped(x) && pageFor(x.id) !== undefined && (oneAtATime || delayOf(x.id) <= 0),
      group: x.group,
    }));

  // With several workers a site whose host is in its politeness delay is skipped for this pick
  // (another site is crawled meanwhile); with one worker the policy's choice is waited for.
  const capped = (x: Site) => s['max-pages-per-site'] !== null && x.pulls >= s['max-pages-per-site'];
  const delayOf = (id: number) => {
    const host = new URL(pageFor(id)!.url).host;
    return Math.max(gate.waitMs(host), heldHosts.get(host) ?? 0);
  };
  const soonestDelay = (): number | null => {
    let soonest: number | null = null;
    for (const x of sites.values()) {
      if (x.unavailable !== null || inFlight.has(x.id) || capped(x) || pageFor(x.id) === undefined) continue;
      soonest = Math.min(soonest ?? Infinity, Math.max(1, delayOf(x.id)));
    }
    return soonest;
  };

  const siteCounts = (): SiteCounts => {
    const c = { crawling: 0, exhausted: 0, unavailable: 0 };
    for (const x of sites.values()) {
      if (x.unavailable !== null) c.unavailable++;
      else if (inFlight.has(x.id) || (!capped(x) && pageFor(x.id) !== undefined)) c.crawling++;
      else c.exhausted++;
    }
    return c;
  };

  /**
   * robots.txt's word on a page. Disallowed: stored as robots-denied, never fetched. Unreadable
   * (5xx, network error): never fail open — the page is skipped the same way, and the origin's
   * file is asked for again after its retry time; when that happens to a site's start page the
   * site is Not Available, as with any start page that can't be fetched.
   */
  const robotsAllow = async (page: FrontierPage, site: Site): Promise<boolean> => {
    const v = await reader.robots(page.url, o.signal);
    if (v === 'aborted') return false;
    if (v.kind === 'allow') return true;
    if (v.kind === 'wait' && page.level === 0) {
      site.unavailable = v.reason;
      writer.giveUp(site.id, v.reason);
    } else {
      writer.skip(page, 'robots-denied', v.reason);
    }
    nextPage.delete(site.id);
    return false;
  };

  /** Fetch one page and commit it; false when nothing was pulled (robots.txt, abandoned). */
  const pull = async (page: FrontierPage): Promise<boolean> => {
    const site = sites.get(page.siteId)!;
    const host = new URL(page.url).host;
    if (!(await robotsAllow(page, site))) return false;
    // Shared: robots.txt may have waited for its host; the page's whole time counts from here.
    if (shared && !shared.renew(page.id)) return false;
    const read = await reader.read(page, o.signal);
    if (read === 'abandoned') return false;
    if (read.timedOut) gate.failed(host);
    const result = read.result;
    result.ms = read.ms;
    if (page.level === 0 && result.unavailable === null) result.unavailable = startPageProblem(result);
    const hostState = gate.state(host);
    if (result.unavailable === null && hostState.failures >= s['give-up-after']) {
      result.unavailable = `gave up: ${hostState.failures} failures in a row on ${host} (last: ${result.error})`;
    }
    // Shared: a worker stalled past its lease has lost the page to another, which stores it.
    if (shared && !shared.renew(page.id)) return false;
    const { seq, reward, rewards: got, newUrls, newHosts } = writer.commit(result);
    if (shared) mine.add(seq);
    hostsLog.state(host, hostState.delayMs, hostState.failures, hostState.pausedUntil);
    pagesPerHost.set(host, (pagesPerHost.get(host) ?? 0) + 1);
    if (result.unavailable) site.unavailable = result.unavailable;
    if (!shared) {
      // a shared crawl reads these back from the database (syncShared), with the other workers' pulls
      deadEnds.record(site.id, page.url, pullOutcome(result.status, result.httpStatus));
      site.pulls++;
      site.rewardSum += reward;
      site.rewardMax = Math.max(site.rewardMax, reward);
      rewards.get(site.id)!.push(reward);
      totalPulls++;
    }
    runPulls++;
    runRewards.urls += got.urls;
    runRewards.hosts += got.hosts;
    runRewards.pairs += got.pairs;
    runNewUrls += newUrls;
    runNewHosts += newHosts;
    nextPage.delete(site.id);
    o.onPull?.({
      seq, site, url: page.url, level: page.level, status: result.status, httpStatus: result.httpStatus,
      error: result.error ?? result.unavailable, reward, rewards: got, totalPulls,
      distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, siteCounts,
    });
    return true;
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      if (o.signal.aborted) return void (reason = 'interrupted');
      syncShared();
      if (s.budget !== null && totalPulls + inFlight.size >= s.budget) {
        if (inFlight.size === 0) reason = 'budget';
        return;
      }
      const id = o.policy({ arms: arms(), history: picks, budget: s.budget, random: randomFor(s.seed, picks.length) });
      if (id === null) {
        let delayed = soonestDelay();
        // Shared: pages other workers hold may add links, or come back when a killed worker's lease runs out.
        if (shared && delayed === null && shared.othersBusy() > 0) delayed = Math.min(200, Math.max(1, shared.soonestExpiry() ?? 200));
        // Shared: a host held by another worker's request frees at its end, sooner than its hold says.
        if (shared && delayed !== null) delayed = Math.min(delayed, 200);
        if (inFlight.size === 0 && delayed === null) return; // nothing open or pending: every site is exhausted
        const woken = new Promise<void>((r) => waiters.push(r));
        await (delayed === null ? woken : Promise.race([woken, sleep(delayed)]));
        continue;
      }
      const page = pageFor(id);
      if (!page || inFlight.has(id)) throw new Error(`policy chose site ${id}, which is not open`);
      if (shared) {
        if (!shared.lease(page.id)) {
          nextPage.delete(id); // another worker took it first
          continue;
        }
        if (!shared.takeBudget()) {
          shared.release(page.id);
          if (inFlight.size === 0) reason = 'budget';
          return;
        }
      }
      inFlight.set(id, page.id);
      if (!shared) picks.push(id); // shared: the history is the database's, in commit order
      try {
        // Nothing pulled (robots.txt): take the pick back so the history stays the crawl's.
        if (!(await pull(page))) {
          if (shared) shared.returnBudget();
          else picks.splice(picks.lastIndexOf(id), 1);
        }
      } finally {
        shared?.release(page.id);
        inFlight.delete(id);
        nextPage.delete(id);
        wake();
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: Math.max(1, s.concurrency) }, worker));
  } finally {
    wake();
    writer.group.flush();
    writer.text?.catchUp(); // anchors of links found after their page was indexed
    await reader.close();
  }
  if (shared) {
    syncShared();
    writer.known = new KnownExternal(db); // the distinct totals of the whole shared crawl
  }
  if (o.signal.aborted) reason = 'interrupted';
  else if (s.budget !== null && totalPulls >= s.budget) reason = 'budget';
  return {
    reason, pulls: runPulls, rewards: runRewards, newUrls: runNewUrls, newHosts: runNewHosts,
    distinctUrls: writer.known.distinctUrls, distinctHosts: writer.known.distinctHosts, mode: s.reward, totalPulls, budget: s.budget, seconds: (Date.now() - started) / 1000, ...politenessBound(pagesPerHost, gate, s.concurrency) };
}

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
