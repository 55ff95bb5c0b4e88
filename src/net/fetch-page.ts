import type { Dispatcher } from 'undici';
import type { Hop } from '../pull/pull-record.js';
import { linkFate, type SiteScope } from '../page/link-fate.js';
import type { HostGate } from './host-gate.js';
import { FetchError, httpGet, type HttpOptions, type HttpResponse } from './http.js';
import type { BodyTurn } from './large-bodies.js';
import { retryableStatus } from './failure-rule.js';

export interface PageFetch {
  hops: Hop[];
  /** The last response that was not a redirect we followed; null after an error. */
  response: HttpResponse | null;
  /** The URL that gave `response` (after in-site redirects). */
  finalUrl: string;
  /** Redirect target outside the site: recorded as an external link, not followed. */
  offsite: { url: string; key: string; host: string } | null;
  error: string | null;
  /** Requests repeated after a transient failure (logged; they don't count against the budget). */
  retries: number;
}

export interface FetchContext {
  dispatcher: Dispatcher;
  http: HttpOptions;
  gate: HostGate;
  site: SiteScope;
  maxRedirects: number;
  /** At most this many repeats of a request that failed transiently. */
  retries: number;
  signal: AbortSignal;
  /** robots.txt: why a URL may not be fetched, or null when it may. */
  denied?: (url: string) => Promise<string | null>;
  /** A refresh: the last fetch's validators, sent on the first request only (a redirect target is another page). */
  validators?: Validators;
  /** Each request is being sent (after the host's politeness let it go): a re-check's time is the last one's. */
  onSend?: () => void;
  /** The page's claim on the crawl's one large-body turn (large-bodies.ts). */
  turn?: BodyTurn;
}

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** The conditional-request headers for stored validators (RFC 9110 13.1). */
export function conditionalHeaders(v: Validators | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  if (v?.etag) h['if-none-match'] = v.etag;
  if (v?.lastModified) h['if-modified-since'] = v.lastModified;
  return h;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Worth another try: the server or the path to it may recover. Never DNS failures (the name
// won't appear in a second) nor 4xx other than 408 and 429 (the answer won't change). A
// malformed answer (bad-response, length-mismatch) is the page's own error, not its host's: not
// repeated, and the host does not back off for it (a healthy site is never given up for it).
const RETRYABLE = new Set(['reset', 'connect-timeout', 'headers-timeout', 'body-timeout', 'network', 'refused']);

/** Fetch a page, following redirects ourselves so every hop is recorded and off-site ones stop. */
export async function fetchPage(url: string, ctx: FetchContext): Promise<PageFetch> {
  const out: PageFetch = { hops: [], response: null, finalUrl: url, offsite: null, error: null, retries: 0 };
  const fail = (error: string): PageFetch => ({ ...out, response: null, error });
  const seen = new Set<string>();
  let current = url;
  for (;;) {
    seen.add(current);
    out.finalUrl = current;
    const refusal = current === url ? null : await ctx.denied?.(current);
    if (refusal) return fail(refusal);
    let res: HttpResponse;
    try {
      res = await getWithRetry(current, ctx, out, current === url ? conditionalHeaders(ctx.validators) : {});
    } catch (err) {
      if (!(err instanceof FetchError) || err.reason === 'aborted') throw err;
      out.hops.push({ url: current, status: null, location: null });
      return fail(err.message);
    }
    out.hops.push({ url: current, status: res.status, location: res.location });
    out.response = res;
    if (!REDIRECTS.has(res.status)) return out;
    if (res.location === null) return fail(`missing-location: HTTP ${res.status} without Location`);
    const target = linkFate(res.location, current, ctx.site);
    if (target.kind === 'bad') return fail(`bad-redirect: ${res.location.slice(0, 200)}`);
    if (target.kind === 'external') return { ...out, offsite: { url: target.url, key: target.key, host: target.host } };
    if (seen.has(target.url)) return fail(`redirect-loop: ${target.url}`);
    if (out.hops.length > ctx.maxRedirects) return fail(`too-many-redirects: more than ${ctx.maxRedirects}`);
    current = target.url;
  }
}

/**
 * One request with at most ctx.retries repeats, the host's delay apart. The host backs off once
 * the request failed for good (net/failure-rule.ts grows the pause per failed attempt, not per
 * repeat: a failing server is asked again later, in this run or the next, not hammered now).
 */
async function getWithRetry(url: string, ctx: FetchContext, out: PageFetch, headers: Record<string, string>): Promise<HttpResponse> {
  const host = new URL(url).host;
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= ctx.retries || ctx.signal.aborted;
    let res: HttpResponse;
    try {
      res = await ctx.gate.run(host, ctx.signal, () => {
        ctx.onSend?.();
        return httpGet(ctx.dispatcher, url, ctx.http, ctx.signal, 'page', ctx.http.maxBytes, headers, ctx.turn);
      });
    } catch (err) {
      const reason = err instanceof FetchError ? err.reason : null;
      const transient = reason !== null && RETRYABLE.has(reason);
      if (!transient || last) {
        if (transient || reason === 'dns' || reason === 'unreachable') ctx.gate.failed(host);
        throw err;
      }
      out.retries++;
      continue;
    }
    if (!retryableStatus(res.status)) {
      ctx.gate.succeeded(host);
      return res;
    }
    // The server says when to come back: hold the whole host until then (capped by the gate).
    if (res.retryAfterMs !== null) ctx.gate.pause(host, res.retryAfterMs);
    // Asked to come back later than this run waits: not asked again now.
    if (last || ctx.gate.closedUntil(host) !== null) {
      ctx.gate.failed(host);
      return res;
    }
    out.retries++;
  }
}
