import { sliceWhole } from '../markup/whole-chars.js';
import { fetchUrl, hostKey, resolveHref, urlKey, type NormalizeMode } from '../url/url.js';
import { siteVerdict, type SiteRule } from '../url/scope.js';
import type { SessionIds } from '../url/session-ids.js';
import { urlTrap } from '../url/traps.js';
import { skippedExtension, type SkipExtensions } from '../url/file-links.js';
import { canonicalLink } from '../params/canonical.js';
import type { SiteParamRules } from '../params/rules.js';
import type { FoundLinks, Hold } from './found-links.js';
import type { ClassTally, DeadEnds } from '../schedule/dead-ends.js';

/**
 * A link's fate, decided here and nowhere else: the crawl and the store only record what these
 * functions return. The crawl learns what decides it in three steps, so the fate is asked at each:
 * - found (on a page, in a sitemap, as a redirect's Location; linkFate, then settleInternal for a
 *   page's or a sitemap's links): bad, external, or the site's: to fetch, or held (stored, never
 *   fetched) as excluded by the site's patterns, ignored by its parameter rules, a trap, a file;
 * - stored (queryVariantFate): a new query string past its path's cap is a trap, from the counts
 *   the store keeps;
 * - picked (pickedFate): a queued page in a dead-end class is skipped, one robots.txt disallows is
 *   robots-denied.
 * Pure: what the crawl knows comes in as plain data.
 */

export type BadReason = 'empty' | 'javascript' | 'mailto' | 'tel' | 'data' | 'unparseable' | 'unsupported-scheme' | 'too-long';
export type LinkFate =
  /** `hold`: the site's, left out by its include/exclude patterns (stored, never fetched) */
  | { kind: 'internal'; url: string; key: string; hold?: Hold }
  | { kind: 'external'; url: string; key: string; host: string }
  | { kind: 'bad'; raw: string; reason: BadReason };
/** A site's bounds, the bounds of the sites nested in it (they own their URLs), its key rule and session ids. */
export interface SiteScope { rule: SiteRule; nested: readonly SiteRule[]; mode: NormalizeMode; sessionIds?: SessionIds }

// The WHATWG parser strips leading/trailing C0 controls and spaces and removes tab/LF/CR
// anywhere, so '\x01java\nscript:' is a javascript: URL to a browser; check the same string.
const SCHEME_NOISE = /^[\x00-\x20]+|[\t\n\r]/g;
const BAD_SCHEME = /^(javascript|mailto|tel|data):/i;

/**
 * A link longer than this is no URL a server answers (Apache's and nginx's request line is 8 KB):
 * bad, `too-long`. A page of 10 MB could otherwise store a few megabyte-long URLs, twice each.
 */
export const MAX_LINK_CHARS = 8192;
/** A bad link's text is kept to this many characters, then '…': a data: URI can be megabytes. */
export const BAD_RAW_CHARS = 2048;

function bad(raw: string, reason: BadReason): LinkFate {
  if (raw.length <= BAD_RAW_CHARS) return { kind: 'bad', raw, reason };
  return { kind: 'bad', raw: `${sliceWhole(raw, BAD_RAW_CHARS)}…`, reason };
}

/** A link found (raw href, and the URL it is read against): internal (perhaps held by the site's patterns), external or bad. */
export function linkFate(href: string, base: string, site: SiteScope): LinkFate {
  const trimmed = href.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, ''); // HTML's ASCII whitespace
  if (trimmed === '') return bad(href, 'empty');
  const scheme = BAD_SCHEME.exec(trimmed.replace(SCHEME_NOISE, ''));
  if (scheme) return bad(href, scheme[1].toLowerCase() as BadReason);
  if (trimmed.length > MAX_LINK_CHARS) return bad(href, 'too-long'); // before parsing it
  const u = resolveHref(trimmed, base);
  if (!u) return bad(href, 'unparseable');
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return bad(href, 'unsupported-scheme');
  if (u.href.length > MAX_LINK_CHARS) return bad(href, 'too-long'); // percent-encoding grows a short href up to 9 times
  const key = urlKey(u, site.mode, site.sessionIds);
  const v = siteVerdict(u, site.rule, site.nested);
  if (v.kind === 'in') return { kind: 'internal', url: fetchUrl(u), key };
  if (v.kind === 'held') return { kind: 'internal', url: fetchUrl(u), key, hold: { status: 'excluded', note: v.note } };
  return { kind: 'external', url: fetchUrl(u), key, host: hostKey(u.hostname) };
}

/** The crawl settings a page's links are settled by, under the names the crawl's settings give them. */
export interface LinkSettings {
  'max-url-length': number;
  'max-path-depth': number;
  'skip-extensions': SkipExtensions;
  'max-links-per-page': number;
}

/**
 * What becomes of a page's (or a sitemap's) internal links before they are stored: a link the
 * site's patterns left out stays held; parameter rules first, then: a URL that names no content
 * is ignored, one that does becomes its canonical spelling, which the trap and file checks then
 * see. Changes the links in place (a page may hold thousands: no copy of each).
 */
export function settleInternal(links: FoundLinks['internal'], scope: SiteScope, s: LinkSettings, params?: SiteParamRules): void {
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

/**
 * What a key's query strings are counted under for the 'query-variants' trap: its path up to and
 * with the '?'; null when it has no query string (never that trap).
 */
export function variantPath(key: string): string | null {
  const q = key.indexOf('?');
  return q < 0 ? null : key.slice(0, q + 1);
}

/**
 * A link new to the store whose path has `counted` distinct query strings already (stored, and
 * new on the same page before it) is a trap once that reaches `max` (max-query-variants): a
 * calendar or a faceted search spells one page a thousand ways.
 */
export function queryVariantFate(counted: number, max: number): Hold | undefined {
  return counted >= max ? { status: 'trap', note: 'query-variants' } : undefined;
}

/** What robots.txt says of a URL, as the crawl read it (net/robots-cache.ts). */
export type RobotsWord =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string }
  /** robots.txt could not be read: nothing of this origin may be fetched until `until` (ms). */
  | { kind: 'wait'; until: number; reason: string };

/** A queued page stored and never pulled, and why. */
export interface Skip {
  status: 'skipped' | 'robots-denied';
  note: string;
}

/** What the crawl knows of a queued page when it is picked. */
export interface AtPick {
  /** the tallies of its link classes in its site (schedule/dead-ends.ts), and the failed pulls with no page that make a dead end (null: never) */
  deadEnds?: { tallies: readonly ClassTally[]; limit: number | null };
  /** robots.txt's word on its URL */
  robots?: RobotsWord;
}

/**
 * A queued page's fate when it is picked: robots-denied when robots.txt disallows it, skipped
 * when one of its classes is a dead end (`limit` failed pulls, 4xx or not HTML, and never an HTML
 * page: translations never built, other versions of the docs), else null: fetch it. An unreadable
 * robots.txt is no fate: the page waits, a failure for now.
 */
export function pickedFate(at: AtPick): Skip | null {
  if (at.robots?.kind === 'deny') return { status: 'robots-denied', note: at.robots.reason };
  const d = at.deadEnds;
  if (d && d.limit !== null) {
    for (const c of d.tallies) if (c.good === 0 && c.bad >= d.limit) return { status: 'skipped', note: `dead end: ${c.bad} failed pulls and no page in ${c.cls}` };
  }
  return null;
}

/** A fetch's next redirect hop as robots.txt has it: refused unless allowed (an unreadable file refuses it too). */
export function hopFate(robots: RobotsWord): 'robots-denied' | null {
  return robots.kind === 'allow' ? null : 'robots-denied';
}

/** pickedFate for a page as it comes up in its site's queue (schedule/page-choice.ts), from the dead ends the crawl state tallies. */
export function queuedFate(page: { siteId: number; url: string }, state: { deadEnds: DeadEnds }): Skip | null {
  const d = state.deadEnds;
  return pickedFate({ deadEnds: { tallies: d.tallies(page.siteId, page.url), limit: d.limit } });
}
