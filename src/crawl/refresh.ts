import type { Db } from '../store/db.js';
import { PullWriter } from '../store/commit.js';
import type { FrontierPage } from '../store/frontier.js';
import { loadParamRules } from '../store/param-rules.js';
import { PolitenessWriter } from '../store/politeness.js';
import { RefreshLog, type RefreshAction } from '../store/refreshes.js';
import type { Settings } from '../store/settings.js';
import { listSites } from '../store/sites.js';
import { createAnalyser } from './analyser.js';
import type { SiteScope } from './classify.js';
import { fetchPage, type FetchContext, type PageFetch, type Validators } from './fetch-page.js';
import { HostGate } from './host-gate.js';
import { createDispatcher, type HttpOptions } from './http.js';
import { htmlBody, toPullResult } from './pull-result.js';
import { RobotsCache } from './robots-cache.js';
import { siteIdentity } from './scope.js';

/**
 * What a refresh does with a page's new answer (pure). 304: the page is as it was. 404/410: gone.
 * A server or network failure says nothing about the page: it keeps its links, the next refresh
 * asks again. Anything else (200, another 4xx, an off-site redirect) is what a crawl would store
 * now: the page's links are replaced by it.
 */
export function refreshAction(httpStatus: number | null): RefreshAction {
  if (httpStatus === 304) return 'keep';
  if (httpStatus === 404 || httpStatus === 410) return 'gone';
  if (httpStatus === null || httpStatus >= 500 || httpStatus === 408 || httpStatus === 429) return 'retry';
  return 'replace';
}

export interface RefreshOptions {
  settings: Settings;
  /** Re-checks this run may make; null: no limit (a refresh counts against no crawl budget). */
  budget: number | null;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  signal: AbortSignal;
  onCheck?: (e: { url: string; action: RefreshAction | 'skipped'; httpStatus: number | null }) => void;
}

export interface RefreshSummary {
  gen: number;
  resumed: boolean;
  reason: 'done' | 'budget' | 'interrupted';
  counts: Record<RefreshAction | 'skipped', number>;
  /** pages of this generation still to check */
  left: number;
  seconds: number;
}

/**
 * `crawl --refresh`: re-fetch every fetched page once per generation with conditional requests,
 * one page at a time, with the crawl's politeness (host delays, robots.txt). Each page's outcome
 * and its log row are committed together, so a stopped run resumes with the pages not checked.
 * New internal pages a changed page links to are queued: the next `beebot crawl` fetches them.
 */
export async function refresh(db: Db, o: RefreshOptions): Promise<RefreshSummary> {
  const started = Date.now();
  const s = o.settings;
  const log = new RefreshLog(db);
  const { gen, resumed } = log.generation();
  const scopes = new Map<number, SiteScope>(
    listSites(db).map((x) => [x.id, { identity: siteIdentity(new URL(x.url).hostname, s.scope), scope: s.scope, mode: s.normalize }]),
  );
  const paramRules = loadParamRules(db);
  const indexText = s['index-text'] === 'yes';
  const writer = new PullWriter(db, { maxQueryVariants: s['max-query-variants'], reward: s.reward, indexText });
  const hostsLog = new PolitenessWriter(db);
  const http: HttpOptions = {
    userAgent: s['user-agent'], connectTimeout: s['connect-timeout'], headersTimeout: s['headers-timeout'], bodyTimeout: s['body-timeout'],
    maxBytes: s['max-bytes'], resolve: o.resolve, proxy: o.proxy,
  };
  const dispatcher = createDispatcher(http);
  const analyser = await createAnalyser(1);
  const gate = new HostGate({ delayMs: s.delay, maxBackoffMs: s['max-backoff'] });
  const robots = s.robots === 'yes' ? new RobotsCache(dispatcher, http, gate, s['max-crawl-delay'], () => undefined) : null;
  const counts: RefreshSummary['counts'] = { keep: 0, replace: 0, gone: 0, retry: 0, skipped: 0 };
  let reason: RefreshSummary['reason'] = 'done';
  let fetched = 0;

  const check = async (page: FrontierPage): Promise<'aborted' | void> => {
    const scope = scopes.get(page.siteId)!;
    const old = log.validators(page.id);
    let allowed = true;
    try {
      allowed = !robots || (await robots.verdict(page.url, o.signal)).kind === 'allow';
    } catch (err) {
      if (o.signal.aborted) return 'aborted';
      throw err;
    }
    if (!allowed) {
      writer.group.write(() => log.log(gen, page.id, 'skipped', null, 'robots-denied', old));
      counts.skipped++;
      o.onCheck?.({ url: page.url, action: 'skipped', httpStatus: null });
      return;
    }
    const deadline = new AbortController(); // see crawler.ts: a timer-held controller, not AbortSignal.timeout()
    const timer = setTimeout(() => deadline.abort(new DOMException('page timeout', 'TimeoutError')), s['page-timeout']);
    const signal = AbortSignal.any([o.signal, deadline.signal]);
    const denied = robots ? async (u: string) => ((await robots.verdict(u, signal)).kind === 'allow' ? null : 'robots-denied') : undefined;
    const ctx: FetchContext = { dispatcher, http, gate, site: scope, maxRedirects: s['max-redirects'], retries: s.retries, signal, denied, validators: old };
    let f: PageFetch;
    let analysed = null;
    try {
      f = await fetchPage(page.url, ctx);
      const body = refreshAction(f.response?.status ?? null) === 'replace' ? htmlBody(f) : null;
      if (body) {
        analysed = await analyser.analyse({
          bytes: body, url: f.finalUrl, contentType: f.response!.contentType, scope, defaultEncoding: s['default-encoding'], indexText, focus: false,
        });
      }
    } catch (err) {
      if (o.signal.aborted) return 'aborted'; // not logged: checked again on resume
      if (!signal.aborted) throw err;
      f = { hops: [], response: null, finalUrl: page.url, offsite: null, error: 'page-timeout', retries: 0 };
    } finally {
      clearTimeout(timer);
    }
    fetched++;
    const host = new URL(page.url).host;
    const hs = gate.state(host);
    hostsLog.state(host, hs.delayMs, hs.failures, hs.pausedUntil);
    const status = f.response?.status ?? null;
    const action = refreshAction(status);
    // The validators in force next time: this answer's (a 304 may repeat them), else the old ones.
    const facts = f.response?.facts;
    const now: Validators = action === 'retry' ? old : { etag: facts?.etag ?? (action === 'keep' ? old.etag : null), lastModified: facts?.lastModified ?? (action === 'keep' ? old.lastModified : null) };
    const logIt = () => log.log(gen, page.id, action, status, f.error, now);
    if (action === 'replace') writer.replace(toPullResult(page, f, scope, s, analysed, paramRules.get(page.siteId)), logIt);
    else if (action === 'gone') writer.gone(page.id, logIt);
    else writer.group.write(logIt);
    counts[action]++;
    o.onCheck?.({ url: page.url, action, httpStatus: status });
  };

  try {
    for (let after = 0; ; ) {
      if (o.signal.aborted) {
        reason = 'interrupted';
        break;
      }
      if (o.budget !== null && fetched >= o.budget) {
        reason = 'budget';
        break;
      }
      const page = log.next(gen, after);
      if (!page) break;
      after = page.id;
      if ((await check(page)) === 'aborted') {
        reason = 'interrupted';
        break;
      }
    }
  } finally {
    writer.group.flush();
    writer.text?.catchUp();
    await Promise.all([dispatcher.close().catch(() => undefined), analyser.close()]);
  }
  const left = log.left(gen);
  if (left === 0) log.finish(gen);
  return { gen, resumed, reason, counts, left, seconds: (Date.now() - started) / 1000 };
}
