import { request, type Dispatcher } from 'undici';
import type { HostGate } from '../net/host-gate.js';
import { PageDeadline } from '../net/page-deadline.js';
import { toFetchError, type HttpOptions } from '../net/http.js';
import type { UrlCheck } from '../store/url-checks.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

/** A broken answer: 4xx/5xx or no answer at all (the article's invalid external URL). */
export const isBroken = (c: { status: number | null; error: string | null }): boolean => c.error !== null || c.status === null || c.status >= 400;

/**
 * Check one URL: HEAD, following redirects; when HEAD fails, or the server refuses it (405, 501,
 * and some answer HEAD with 4xx/5xx while GET works), GET once more and keep that answer. Every
 * request waits its turn at the host's gate (one at a time per host, the crawl's delay). The
 * requests of one URL, redirects and the GET included, share `budgetMs` (the crawl's page-timeout):
 * ten redirects each answered just inside the headers timeout would otherwise hold it minutes.
 * The wait at the gate is not counted: it is other URLs' time.
 */
export async function checkUrl(url: string, d: Dispatcher, http: HttpOptions, gate: HostGate, signal: AbortSignal, budgetMs: number): Promise<UrlCheck> {
  const budget = { ms: budgetMs, left: budgetMs };
  const head = await follow('HEAD', url, d, http, gate, signal, budget);
  if (!isBroken(head) || budget.left <= 0) return head;
  // What a browser would get is the answer that counts.
  return follow('GET', url, d, http, gate, signal, budget);
}

async function follow(
  method: 'HEAD' | 'GET', url: string, d: Dispatcher, http: HttpOptions, gate: HostGate, signal: AbortSignal, budget: { ms: number; left: number },
): Promise<UrlCheck> {
  let current = url;
  for (let hop = 0; ; hop++) {
    let status: number;
    let location: string | null = null;
    try {
      if (budget.left <= 0) throw new TimedOut(budget.ms);
      const host = new URL(current).host;
      ({ status, location } = await gate.run(host, signal, async () => {
        // A deadline that holds (see net/page-deadline.ts): a body trickling a byte at a time keeps
        // undici's body timeout from firing, and an AbortSignal.timeout() can be collected unfired.
        const ms = Math.min(http.headersTimeout + http.connectTimeout, budget.left);
        const deadline = new PageDeadline(ms, () => 0);
        const started = Date.now();
        try {
          const res = await request(current, {
            dispatcher: d,
            method,
            signal: AbortSignal.any([signal, deadline.signal]),
            headers: { 'user-agent': http.userAgent, accept: '*/*' },
          });
          // Only the status matters: never read a body. A GET's is dropped at once (closing the
          // connection when more is coming): a body trickling a byte at a time would hold the URL
          // until its deadline, each byte restarting undici's body timeout.
          if (method === 'GET') res.body.on('error', () => undefined).destroy();
          else await res.body.dump().catch(() => undefined);
          const loc = res.headers.location;
          return { status: res.statusCode, location: Array.isArray(loc) ? (loc[0] ?? null) : (loc ?? null) };
        } catch (err) {
          if (deadline.signal.aborted) throw new TimedOut(ms < budget.left ? ms : budget.ms);
          throw err;
        } finally {
          deadline.clear();
          budget.left -= Date.now() - started;
        }
      }));
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof TimedOut) return { url, method, status: null, finalUrl: current, error: `timeout: no answer within ${err.ms / 1000} s` };
      return { url, method, status: null, finalUrl: current, error: toFetchError(err).reason };
    }
    if (!REDIRECTS.has(status) || location === null) return { url, method, status, finalUrl: current, error: null };
    if (hop >= MAX_REDIRECTS) return { url, method, status, finalUrl: current, error: `too-many-redirects: more than ${MAX_REDIRECTS}` };
    try {
      current = new URL(location, current).href;
    } catch {
      return { url, method, status, finalUrl: current, error: `bad-redirect: ${location.slice(0, 200)}` };
    }
  }
}

/** A request's deadline passed, or the URL's whole time (page-timeout): `ms`, the one that did. */
class TimedOut extends Error {
  constructor(readonly ms: number) {
    super('timeout');
  }
}
