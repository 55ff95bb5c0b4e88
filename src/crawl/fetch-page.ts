import type { Dispatcher } from 'undici';
import type { Hop } from '../store/commit.js';
import { classifyLink, type SiteScope } from './classify.js';
import type { HostGate } from './host-gate.js';
import { FetchError, httpGet, type HttpOptions, type HttpResponse } from './http.js';

export interface PageFetch {
  hops: Hop[];
  /** The last response that was not a redirect we followed; null after an error. */
  response: HttpResponse | null;
  /** The URL that gave `response` (after in-site redirects). */
  finalUrl: string;
  /** Redirect target outside the site: recorded as an external link, not followed. */
  offsite: { url: string; key: string } | null;
  error: string | null;
}

export interface FetchContext {
  dispatcher: Dispatcher;
  http: HttpOptions;
  gate: HostGate;
  site: SiteScope;
  maxRedirects: number;
  signal: AbortSignal;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Worth one more try: the server or the path to it may recover in a moment.
const RETRYABLE = new Set(['reset', 'connect-timeout', 'headers-timeout', 'body-timeout', 'network']);

/** Fetch a page, following redirects ourselves so every hop is recorded and off-site ones stop. */
export async function fetchPage(url: string, ctx: FetchContext): Promise<PageFetch> {
  const hops: Hop[] = [];
  const seen = new Set<string>();
  let current = url;
  for (;;) {
    seen.add(current);
    let res: HttpResponse;
    try {
      res = await getWithRetry(current, ctx);
    } catch (err) {
      if (!(err instanceof FetchError) || err.reason === 'aborted') throw err;
      hops.push({ url: current, status: null, location: null });
      return { hops, response: null, finalUrl: current, offsite: null, error: err.message };
    }
    hops.push({ url: current, status: res.status, location: res.location });
    if (!REDIRECTS.has(res.status) || res.location === null) {
      return { hops, response: res, finalUrl: current, offsite: null, error: null };
    }
    const target = classifyLink(res.location, current, ctx.site);
    const fail = (error: string): PageFetch => ({ hops, response: null, finalUrl: current, offsite: null, error });
    if (target.kind === 'bad') return fail(`bad-redirect: ${res.location}`);
    if (target.kind === 'external') {
      return { hops, response: res, finalUrl: current, offsite: { url: target.url, key: target.key }, error: null };
    }
    if (seen.has(target.url)) return fail(`redirect-loop: ${target.url}`);
    if (hops.length > ctx.maxRedirects) return fail(`too-many-redirects: more than ${ctx.maxRedirects}`);
    current = target.url;
  }
}

async function getWithRetry(url: string, ctx: FetchContext): Promise<HttpResponse> {
  const host = new URL(url).host;
  const once = () => ctx.gate.run(host, ctx.signal, () => httpGet(ctx.dispatcher, url, ctx.http, ctx.signal));
  try {
    const res = await once();
    return res.status >= 500 ? await once() : res;
  } catch (err) {
    if (err instanceof FetchError && RETRYABLE.has(err.reason) && !ctx.signal.aborted) return once();
    throw err;
  }
}
