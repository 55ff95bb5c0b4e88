import type { Dispatcher } from 'undici';
import type { HostGate } from './host-gate.js';
import { FetchError, httpGet, type HttpOptions } from './http.js';
import type { RobotsWord } from '../page/link-fate.js';
import { clampCrawlDelay, MAX_ROBOTS_BYTES, robotsFromResponse, robotsUrl, type RobotsRules } from './robots.js';

const MAX_HOPS = 5; // RFC 9309 2.3.1.2: follow at least five redirects
const DAY_MS = 24 * 60 * 60 * 1000;


export interface OriginRobots {
  origin: string;
  rules: RobotsRules;
  fetchedAt: number;
  /** Crawl-delay in force for the origin's host, ms, after clamping; null if none asked. */
  crawlDelayMs: number | null;
  clamped: boolean;
}

/**
 * robots.txt per origin (scheme + host + port), fetched once before the first page there and
 * kept for the run (at most 24 h). An unreadable file blocks the origin (never fail open) and
 * is asked for again after its retry time.
 */
export class RobotsCache {
  private byOrigin = new Map<string, OriginRobots>();
  private pending = new Map<string, Promise<OriginRobots>>();

  constructor(
    private dispatcher: Dispatcher,
    private http: HttpOptions,
    private gate: HostGate,
    private maxCrawlDelaySeconds: number,
    /**
     * The deadline of one robots.txt request, ms (the page deadline): undici's bodyTimeout is per
     * chunk, so a file trickled a byte at a time would otherwise hold its origin, and the crawl, forever.
     */
    private deadlineMs: number,
    private onRules?: (r: OriginRobots) => void,
  ) {}

  async verdict(url: string, signal: AbortSignal): Promise<RobotsWord> {
    const r = await this.rulesFor(new URL(url).origin, signal);
    switch (r.rules.kind) {
      case 'allow-all':
        return { kind: 'allow' };
      case 'disallow-all':
        return { kind: 'wait', until: r.rules.retryAt, reason: r.rules.reason };
      case 'parsed':
        return r.rules.isAllowed(url) ? { kind: 'allow' } : { kind: 'deny', reason: 'disallowed by robots.txt' };
    }
  }

  /** The sitemaps an origin's robots.txt names (`Sitemap:` lines); none when it has no readable file. */
  async sitemaps(origin: string, signal: AbortSignal): Promise<string[]> {
    const r = await this.rulesFor(origin, signal);
    return r.rules.kind === 'parsed' ? r.rules.sitemaps : [];
  }

  private async rulesFor(origin: string, signal: AbortSignal): Promise<OriginRobots> {
    const known = this.byOrigin.get(origin);
    const now = Date.now();
    const fresh = known && now - known.fetchedAt < DAY_MS && !(known.rules.kind === 'disallow-all' && now >= known.rules.retryAt);
    if (known && fresh) return known;
    let p = this.pending.get(origin);
    if (!p) {
      p = this.load(origin, signal).finally(() => this.pending.delete(origin));
      this.pending.set(origin, p);
    }
    return p;
  }

  private async load(origin: string, signal: AbortSignal): Promise<OriginRobots> {
    const rules = robotsFromResponse(origin, await this.fetchRobots(origin, signal), Date.now());
    // Unreadable: its host backs off as for any failure, and the file is asked for again then.
    if (rules.kind === 'disallow-all') rules.retryAt = Date.now() + this.gate.failed(new URL(origin).host);
    const delay = rules.kind === 'parsed' ? clampCrawlDelay(rules.crawlDelay, this.maxCrawlDelaySeconds) : { delayMs: null, clamped: false };
    if (delay.delayMs !== null) this.gate.setDelay(new URL(origin).host, delay.delayMs);
    const r: OriginRobots = {
      origin,
      rules,
      fetchedAt: Date.now(),
      crawlDelayMs: delay.delayMs,
      clamped: delay.clamped,
    };
    this.byOrigin.set(origin, r);
    this.onRules?.(r);
    return r;
  }

  private async fetchRobots(origin: string, signal: AbortSignal) {
    let url = robotsUrl(origin + '/');
    for (let hop = 0; hop <= MAX_HOPS; hop++) {
      const host = new URL(url).host;
      try {
        const res = await this.gate.run(host, signal, () => this.get(url, signal));
        if (res.status >= 300 && res.status < 400 && res.location) {
          url = new URL(res.location, url).href;
          continue;
        }
        return { status: res.status, body: res.body };
      } catch (err) {
        if (!(err instanceof FetchError) || err.reason === 'aborted') throw err;
        return { error: err.reason };
      }
    }
    return { unavailable: `more than ${MAX_HOPS} redirects` };
  }

  /**
   * One request within the deadline. Out of time: FetchError 'page-timeout' (a TimeoutError
   * reason, see http.ts), so the file is unreadable: disallow for now. The caller's signal
   * stopping the run stays an 'aborted' that fetchRobots passes on.
   */
  private async get(url: string, signal: AbortSignal) {
    // A timer holding its controller, not AbortSignal.timeout(): see page-reader.ts.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException('robots.txt timeout', 'TimeoutError')), this.deadlineMs);
    try {
      // One byte past the limit, so that parseRobotsTxt sees the file is longer and drops the line
      // cut at the limit ("Disallow: /*a" cut from "Disallow: /*a*b" would close the site).
      return await httpGet(this.dispatcher, url, this.http, AbortSignal.any([signal, deadline.signal]), 'robots', MAX_ROBOTS_BYTES + 1);
    } finally {
      clearTimeout(timer);
    }
  }
}
