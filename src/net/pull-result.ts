import type { FrontierPage } from '../store/frontier.js';
import type { PullResult } from '../store/pull-record.js';
import type { Settings } from '../store/settings.js';
import type { PageLinks, Unparsed } from '../page/analyse.js';
import type { FoundLinks, Hold } from '../page/found-links.js';
import { bytesPrint } from '../page/page-fingerprint.js';
import type { SiteScope } from '../page/classify.js';
import type { PageFetch } from './fetch-page.js';
import { isHtmlType, looksLikeHtml } from './http.js';
import { urlTrap } from '../url/traps.js';
import { skippedExtension } from '../url/file-links.js';
import { urlKey } from '../url/url.js';
import { canonicalLink } from '../params/canonical.js';
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
 * htmlBody(f) (analyse.ts), run by the caller wherever it runs; null when htmlBody(f) is null.
 */
export function toPullResult(
  page: FrontierPage, f: PageFetch, scope: SiteScope, s: Settings, analysed: PageLinks | Unparsed | null, params?: SiteParamRules,
): PullResult {
  const r = failed(page, f.error ?? '');
  r.error = f.error;
  r.hops = f.hops;
  r.retries = f.retries;
  const res = f.response;
  // A fetch that failed on a later hop is the pulled page's failure, not the hop's.
  if (f.response && f.finalUrl !== page.url) {
    const keyOf = (url: string): string => {
      const c = params ? canonicalLink(url, params, scope.mode, scope.sessionIds) : null;
      return c?.kind === 'kept' ? c.key : urlKey(new URL(url), scope.mode, scope.sessionIds);
    };
    const key = keyOf(f.finalUrl);
    if (key !== keyOf(page.url)) r.final = { url: f.finalUrl, key };
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
  r.text = a.text;
  r.print = a.print;
  if (a.terms) r.terms = a.terms;
  // Settled first: the cap keeps pages before the files and traps it would never fetch.
  settleInternal(r.links.internal, scope, s, params);
  const cap = s['max-links-per-page'];
  if (a.links.internal.length + a.links.external.length + a.links.bad.length > cap) r.note = capLinks(r, cap);
  return r;
}

/**
 * What becomes of a page's (or a sitemap's) internal links before they are stored: a link the
 * site's patterns left out stays held; parameter rules first, then: a URL that names no content
 * is ignored, one that does becomes its canonical spelling, which the trap and file checks then
 * see. Changes the links in place.
 */
export function settleInternal(links: FoundLinks['internal'], scope: SiteScope, s: Settings, params?: SiteParamRules): void {
  const limits = { maxUrlLength: s['max-url-length'], maxPathDepth: s['max-path-depth'], maxRepeats: 3 };
  for (const l of links) {
    if (l.hold) continue;
    if (params) {
      const c = canonicalLink(l.url, params, scope.mode, scope.sessionIds);
      if (c?.kind === 'ignored') {
        l.hold = { status: 'ignored', note: c.note };
        continue;
      }
      if (c) {
        l.url = c.url;
        l.key = c.key;
      }
    }
    const trap = urlTrap(l.url, limits);
    if (trap) {
      l.hold = { status: 'trap', note: trap };
      continue;
    }
    const ext = skippedExtension(l.url, s['skip-extensions']);
    if (ext) l.hold = { status: 'file', note: ext };
  }
}

/** What a dropped held link is called in the cap's note. */
const HELD_NAMES: Record<Hold['status'], string> = { file: 'files', trap: 'traps', ignored: 'ignored', excluded: 'excluded' };

/**
 * Keep at most `cap` distinct links of a page (r.links, in page order), and say what was cut.
 * Repeats collapse first, as the store would collapse them (the first of each key is the one it
 * keeps), so a link repeated 10,000 times counts once. Then what the user counts keeps its place:
 * external links first, then internal pages (how the crawl finds more of them), then the internal
 * links held unfetched (files, traps), then bad links. Returns the fetch log's note, or null when
 * the distinct links fit. Only pages over the cap come here, so an ordinary page pays nothing for it.
 */
function capLinks(r: PullResult, cap: number): string | null {
  const distinct = <T>(links: T[], key: (l: T) => string): T[] => {
    const seen = new Set<string>();
    return links.filter((l) => {
      const k = key(l);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  };
  const internal = distinct(r.links.internal, (l) => l.key);
  const external = distinct(r.links.external, (l) => l.key);
  const bad = distinct(r.links.bad, (l) => l.raw);
  const found = internal.length + external.length + bad.length;
  if (found <= cap) {
    r.links = { internal, external, bad };
    return null;
  }
  let room = cap;
  const dropped = new Map<string, number>();
  const take = <T>(links: T[], name: (l: T) => string): T[] => {
    const kept = links.slice(0, room);
    room -= kept.length;
    for (let i = kept.length; i < links.length; i++) dropped.set(name(links[i]!), (dropped.get(name(links[i]!)) ?? 0) + 1);
    return kept;
  };
  const ext = take(external, () => 'external');
  const kept = new Set([...take(internal.filter((l) => !l.hold), () => 'internal'), ...take(internal.filter((l) => l.hold), (l) => HELD_NAMES[l.hold!.status])]);
  r.links = { external: ext, internal: internal.filter((l) => kept.has(l)), bad: take(bad, () => 'bad') };
  return `links-capped: ${cap} of ${found} kept; dropped ${[...dropped].map(([name, n]) => `${n} ${name}`).join(', ')}`;
}

/** Why a site's start page makes the site Not Available, or null when it is fine. */
export function startPageProblem(r: PullResult): string | null {
  if (r.status === 'done') return null;
  if (r.status === 'redirect') return `start page redirects off-site to ${r.links.external[0]?.url}`;
  if (r.status === 'not-html') return `start page is not HTML (${r.contentType ?? 'no Content-Type'})`;
  return `start page failed: ${r.error ?? 'unknown error'}`;
}
