import type { FrontierPage } from '../schedule/queued-page.js';
import type { PullResult } from '../pull/pull-record.js';
import type { FinalPage, Unparsed } from '../page/analyse.js';
import { bytesPrint } from '../page/page-fingerprint.js';
import type { SiteScope } from '../page/link-fate.js';
import { linkKey } from '../page/final-links.js';
import type { PageFetch } from './fetch-page.js';
import { isHtmlType, looksLikeHtml } from './http.js';
import type { SiteParamRules } from '../params/rules.js';

/** A pull that produced nothing but an error. */
export function failed(page: FrontierPage, error: string): PullResult {
  return {
    page, final: null, status: 'error', httpStatus: null, contentType: null, bytes: null, contentLength: null, facts: null, encoding: null,
    encodingSource: null, error, hops: [], links: { internal: [], external: [], bad: [] }, text: null, ms: 0, retries: 0, note: null, unavailable: null,
  };
}

/** The body a pull must analyse: a 2xx HTML answer that stayed in the site; else null. */
export function htmlBody(f: PageFetch): Uint8Array | null {
  const res = f.response;
  if (!res || f.offsite || res.status < 200 || res.status >= 300 || res.body === null) return null;
  return isHtmlType(res.contentType) || (res.contentType === null && looksLikeHtml(res.body)) ? res.body : null;
}

/**
 * Turn what the network gave into what the store keeps (pure). `analysed` is the analysis of
 * htmlBody(f) with its final links (analyseJob), run by the caller wherever it runs; null when
 * htmlBody(f) is null.
 */
export function toPullResult(page: FrontierPage, f: PageFetch, scope: SiteScope, analysed: FinalPage | Unparsed | null, params?: SiteParamRules): PullResult {
  const r = failed(page, f.error ?? '');
  r.error = f.error;
  r.hops = f.hops;
  r.retries = f.retries;
  const res = f.response;
  // A fetch that failed on a later hop is the pulled page's failure, not the hop's.
  if (f.response && f.finalUrl !== page.url) {
    const key = linkKey(f.finalUrl, scope, params);
    if (key !== linkKey(page.url, scope, params)) r.final = { url: f.finalUrl, key };
  }
  if (!res) return r;
  r.httpStatus = res.status;
  r.contentType = res.contentType;
  r.bytes = res.body?.length ?? res.contentLength;
  r.contentLength = res.contentLength;
  r.facts = res.facts;
  if (f.offsite) {
    r.status = 'redirect';
    r.links.external.push({ url: f.offsite.url, key: f.offsite.key, host: f.offsite.host, anchor: '', rel: '', tag: 'redirect' });
    return r;
  }
  if (res.status < 200 || res.status >= 300) {
    r.error = `HTTP ${res.status}`;
    return r;
  }
  const body = htmlBody(f);
  if (!body) {
    r.status = 'not-html';
    if (res.body) r.print = bytesPrint(res.body);
    return r;
  }
  if (!analysed) throw new Error('toPullResult: an HTML page needs its analysis');
  if ('unparsed' in analysed) {
    r.error = analysed.unparsed;
    return r;
  }
  const a = analysed;
  r.status = 'done';
  r.encoding = a.encoding;
  r.encodingSource = a.encodingSource;
  r.title = a.title ?? null;
  r.links = a.links;
  r.note = a.note;
  r.text = a.text;
  r.print = a.print;
  if (a.terms) r.terms = a.terms;
  return r;
}

/** Why a site's start page makes the site Not Available, in words (when it does is net/failure-rule.ts's). */
export function startPageProblem(r: PullResult): string {
  if (r.status === 'redirect') return `start page redirects off-site to ${r.links.external[0]?.url}`;
  if (r.status === 'not-html') return `start page is not HTML (${r.contentType ?? 'no Content-Type'})`;
  return `start page failed: ${r.error ?? 'unknown error'}`;
}
