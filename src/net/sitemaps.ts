import { MAX_SITEMAP_URLS, readSitemapFile } from '../markup/sitemap.js';
import { screen } from '../markup/terminal-text.js';
import { sliceWhole } from '../markup/whole-chars.js';
import { linkFate, settleInternal, type LinkSettings, type SiteScope } from '../page/link-fate.js';
import type { SiteParamRules } from '../params/rules.js';
import type { SitemapPage } from '../pull/sitemap-found.js';
import { FetchError, type HttpResponse } from './http.js';
import { failsForNow } from './failure-rule.js';

/** Sitemap files asked for per site at most (an index and its sitemaps, found or not), and page URLs taken from them. */
export const MAX_SITEMAP_FILES = 50;
/**
 * Decoded bytes a site's sitemaps may take in all: inflating and parsing run on the crawl's
 * thread (about 1 s per 50 MB here), and 50,000 URLs take a tenth of this.
 */
export const MAX_SITEMAP_SITE_BYTES = 100 * 1024 * 1024;
export const MAX_SITEMAP_PAGES = MAX_SITEMAP_URLS;
/**
 * Page deadlines a site's sitemaps may take in all: the site is held while they are read, and
 * an index of slow files (a server that trickles) would otherwise hold it MAX_SITEMAP_FILES deadlines.
 */
export const SITEMAP_SITE_DEADLINES = 2;
const MAX_HOPS = 5;

export interface SitemapRead {
  /** page URLs in the order the sitemaps list them, each with the sitemap that listed it first */
  pages: { url: string; sitemap: string }[];
  /** sitemap files read */
  files: number;
  /** files that could not be read or are not sitemaps, with why (a missing /sitemap.xml is not one) */
  problems: string[];
  /** a file failed for now (network, timeout, 5xx, 429): the sitemaps are to be read again by a later crawl */
  again: boolean;
}

/** One GET of a sitemap file through the crawl's politeness; a redirect is returned, not followed. */
export type GetFile = (url: string) => Promise<HttpResponse>;

/**
 * A site's sitemaps, as search engines and archive crawlers read them: the files its robots.txt
 * names (`Sitemap:` lines) and `/sitemap.xml` at its origin; a sitemap index's sitemaps in turn
 * (nested indexes too, within MAX_SITEMAP_FILES). Which of the URLs belong to the site is the
 * caller's business (the site's scope decides, as for any link).
 */
export async function readSitemaps(startUrl: string, named: readonly string[], get: GetFile, within: number): Promise<SitemapRead> {
  const until = performance.now() + within;
  const fallback = new URL('/sitemap.xml', startUrl).href;
  // robots.txt's lines are the site's text: a relative or broken one is resolved or dropped
  const queue = [...new Set([...named.map((n) => httpUrl(n, startUrl)).filter((n): n is string => n !== null), fallback])];
  const asked = new Set(queue);
  const seen = new Set<string>();
  const out: SitemapRead = { pages: [], files: 0, problems: [], again: false };
  let budget = MAX_SITEMAP_SITE_BYTES;
  // Files asked for, not only those read: an index of 50,000 missing sitemaps is 50 requests.
  let late = false;
  for (let tried = 0; queue.length && tried < MAX_SITEMAP_FILES && out.pages.length < MAX_SITEMAP_PAGES && budget > 0; tried++) {
    if (performance.now() >= until) {
      late = true;
      break;
    }
    const url = queue.shift()!;
    const body = await fetchFile(url, get);
    if ('why' in body) {
      if (body.forNow) out.again = true;
      if (!(url === fallback && body.why === 'HTTP 404')) out.problems.push(problem(url, body.forNow ? `${body.why} (read again by the next crawl)` : body.why));
      continue;
    }
    out.files++;
    const { map, decoded } = readSitemapFile(body.body, budget);
    budget -= decoded;
    if (map.kind === 'error') {
      out.problems.push(problem(url, map.error));
      continue;
    }
    for (const loc of map.locs) {
      if (map.kind === 'index') {
        if (asked.has(loc)) continue;
        asked.add(loc);
        queue.push(loc);
      } else if (!seen.has(loc) && out.pages.length < MAX_SITEMAP_PAGES) {
        seen.add(loc);
        out.pages.push({ url: loc, sitemap: url });
      }
    }
  }
  if (budget <= 0 && queue.length) out.problems.push(`${queue.length} more sitemap file(s) not read: the site's sitemaps took ${MAX_SITEMAP_SITE_BYTES / 1024 / 1024} MB in all`);
  // Being late is no reason to read them again next crawl: a server that slow would hold the site as long again.
  else if (late) out.problems.push(`${queue.length} more sitemap file(s) not read: the site's sitemaps took longer than ${seconds(within)} in all`);
  return out;
}

/**
 * A file that could not be read, as one line of bounded length: a sitemap's locs and its root
 * element's name are the site's text, and the line reaches the user's terminal (summary, status):
 * control characters (escape sequences) show as '?'.
 */
const problem = (url: string, why: string) =>
  screen((url.length > 300 ? `${sliceWhole(url, 299)}…` : url) + `: ${sliceWhole(why, 200)}`);

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);

function httpUrl(s: string, base: string): string | null {
  try {
    const u = new URL(s, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** Why a sitemap file was not read (one line), and whether that may pass (failure-rule.ts: network, timeout, 5xx, 429). */
type Unread = { why: string; forNow: boolean };
const unread = (why: string, httpStatus: number | null = null): Unread => ({ why, forNow: failsForNow({ status: 'error', httpStatus, error: why }) });

/** A sitemap file's body, following at most 5 redirects; or why not. */
async function fetchFile(url: string, get: GetFile): Promise<{ body: Uint8Array } | Unread> {
  let current = url;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    let res: HttpResponse;
    try {
      res = await get(current);
    } catch (err) {
      if (err instanceof FetchError && err.reason !== 'aborted') return unread(err.message);
      throw err;
    }
    if (res.status >= 300 && res.status < 400 && res.location) {
      const next = httpUrl(res.location, current);
      if (next === null) return unread(`bad redirect to ${res.location.slice(0, 200)}`);
      current = next;
      continue;
    }
    if (res.status < 200 || res.status >= 300) return unread(`HTTP ${res.status}`, res.status);
    return { body: res.body ?? new Uint8Array() };
  }
  return unread(`more than ${MAX_HOPS} redirects`);
}

/**
 * The sitemap URLs that are the site's, as its scope classifies any link (outside its bounds or
 * owned by a site nested in it: dropped), then settled as a page's links are (held by its
 * patterns, parameter rules, traps, files).
 */
export function sitemapPages(read: SitemapRead, scope: SiteScope, s: LinkSettings, params?: SiteParamRules): SitemapPage[] {
  const pages: SitemapPage[] = [];
  for (const p of read.pages) {
    const c = linkFate(p.url, p.sitemap, scope);
    if (c.kind !== 'internal') continue;
    pages.push(c.hold === undefined ? { url: c.url, key: c.key, sitemap: p.sitemap } : { url: c.url, key: c.key, sitemap: p.sitemap, hold: c.hold });
  }
  settleInternal(pages, scope, s, params);
  return pages;
}
