import { stripSessionIds, type SessionIds } from './session-ids.js';

export type NormalizeMode = 'standard' | 'paper';

/** Resolve href against base with the WHATWG parser (Node's URL) and drop the fragment; null if unparseable. */
export function resolveHref(href: string, base: string): URL | null {
  let u: URL;
  try {
    u = new URL(href, base);
  } catch {
    return null;
  }
  // Only an input with '#' gives a fragment (a base's never carries over); setting it re-parses the URL.
  if (href.includes('#')) u.hash = '';
  return u;
}

/** The fetch spelling: href without the fragment. */
export function fetchUrl(u: URL): string {
  // '#' is percent-encoded everywhere before the fragment, so the first one starts it.
  const i = u.href.indexOf('#');
  return i < 0 ? u.href : u.href.slice(0, i);
}

/**
 * The stored identity (dedup key). In both modes the key is spelled with 'http:' whatever the
 * scheme, and one leading 'www.' of the host is dropped: a site's scope already treats www.x and
 * x as one site, and sites link to their own pages under both http:// and https:// — keeping
 * either difference would fetch every such page twice. The crawler fetches the first spelling seen.
 * - 'standard': fetchUrl(u) — WHATWG already lowercased scheme/host and dropped the default port;
 *   path and query keep their case.
 * - 'paper' (the 2012 article's rule): the whole URL lowercased, and ONE trailing '/' removed from
 *   the path, the root included: 'http://h/' → 'http://h', 'http://h/a/?q=1' → 'http://h/a?q=1',
 *   'http://h//' → 'http://h/'. The slash is taken from the path, never from the query, so
 *   '?next=/' keeps its value. The result is a key, not necessarily a fetchable spelling.
 * Session ids (session-ids.ts) are left out of the key unless `sessionIds` is 'keep' (the
 * `session-ids` setting of a database crawled before they were: its stored keys have them).
 */
export function urlKey(u: URL, mode: NormalizeMode, sessionIds: SessionIds = 'strip'): string {
  const v = sessionIds === 'strip' ? stripSessionIds(u) : u;
  const s = withoutScheme(withoutWww(fetchUrl(v), v.hostname));
  if (mode === 'standard') return s;
  // '?' is percent-encoded in userinfo and path, so the first one starts the query.
  const q = s.indexOf('?');
  const head = q < 0 ? s : s.slice(0, q);
  const tail = q < 0 ? '' : s.slice(q);
  return ((head.endsWith('/') ? head.slice(0, -1) : head) + tail).toLowerCase();
}

/** A host as keys spell it: one leading 'www.' dropped. The outside host an external link counts as. */
export function hostKey(hostname: string): string {
  return hostname.startsWith('www.') && hostname.length > 4 ? hostname.slice(4) : hostname;
}

/** 'https://h/p' → 'http://h/p': one page under both schemes has one key. */
function withoutScheme(href: string): string {
  return href.startsWith('https:') ? 'http:' + href.slice(6) : href;
}

function withoutWww(href: string, hostname: string): string {
  if (!hostname.startsWith('www.') || hostname.length <= 4) return href;
  const at = href.indexOf(hostname);
  return href.slice(0, at) + hostname.slice(4) + href.slice(at + hostname.length);
}

/**
 * Parse a seed as a user types it: 'spbu.ru', 'www.spbu.ru/path', 'localhost:8080',
 * '//spbu.ru', 'http://x', 'https://x'. Without a scheme it means https, and the host must have a
 * dot, a port or be 'localhost' (so a stray word such as a header cell is no site). Returns null
 * unless the result is an http(s) URL whose host is a DNS name (letters, digits, '-', '_' per
 * label; IDN is punycoded by the parser) or an IP address, with no whitespace anywhere: the WHATWG
 * parser alone turns 'ht!tp://bad url' into 'https://ht!tp//bad%20url'. The fragment is dropped.
 */
export function parseSeedUrl(input: string): URL | null {
  const s = input.trim();
  if (s === '' || /\s/.test(s)) return null;
  // 'host:8080/...' looks like a scheme; a real scheme is not followed by a bare port number.
  const hasScheme = /^[a-z][a-z0-9+.-]*:(?!\d+(?:[/?#]|$))/i.test(s);
  const full = hasScheme ? s : s.startsWith('//') ? `https:${s}` : `https://${s}`;
  let u: URL;
  try {
    u = new URL(full);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !isHostName(u.hostname)) return null;
  if (hasScheme && !/^https?:\/\//i.test(s)) return null; // 'http:x.org' is a typo, not a URL
  if (!hasScheme && !u.hostname.includes('.') && u.port === '' && u.hostname !== 'localhost') return null;
  u.hash = '';
  return u;
}

/** A parsed hostname that names a machine: an IPv6 literal, or dot-separated labels of [a-z0-9_-] not starting or ending with '-'. */
function isHostName(h: string): boolean {
  if (h.startsWith('[')) return true; // the parser has checked the IPv6 literal
  if (h === '' || h.length > 253) return false;
  return h.split('.').every((l) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(l));
}
