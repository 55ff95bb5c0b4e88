import { sliceWhole } from '../markup/whole-chars.js';
import { fetchUrl, hostKey, resolveHref, urlKey, type NormalizeMode } from '../url/url.js';
import { siteVerdict, type SiteRule } from '../url/scope.js';
import type { SessionIds } from '../url/session-ids.js';

export type BadReason = 'empty' | 'javascript' | 'mailto' | 'tel' | 'data' | 'unparseable' | 'unsupported-scheme' | 'too-long';
export type Classified =
  /** `held`: the site's, left out by its include/exclude patterns (stored, never fetched) */
  | { kind: 'internal'; url: string; key: string; held?: string }
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

function bad(raw: string, reason: BadReason): Classified {
  if (raw.length <= BAD_RAW_CHARS) return { kind: 'bad', raw, reason };
  return { kind: 'bad', raw: `${sliceWhole(raw, BAD_RAW_CHARS)}…`, reason };
}

/** THE one place that decides whether a link (raw href from a page) is internal, external or bad. */
export function classifyLink(href: string, base: string, site: SiteScope): Classified {
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
  if (v.kind === 'held') return { kind: 'internal', url: fetchUrl(u), key, held: v.note };
  return { kind: 'external', url: fetchUrl(u), key, host: hostKey(u.hostname) };
}
