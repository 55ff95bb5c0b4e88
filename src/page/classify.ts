import { fetchUrl, hostKey, resolveHref, urlKey, type NormalizeMode } from '../url/url.js';
import { siteVerdict, type SiteRule } from '../url/scope.js';
import type { SessionIds } from '../url/session-ids.js';

export type BadReason = 'empty' | 'javascript' | 'mailto' | 'tel' | 'data' | 'unparseable' | 'unsupported-scheme';
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

/** THE one place that decides whether a link (raw href from a page) is internal, external or bad. */
export function classifyLink(href: string, base: string, site: SiteScope): Classified {
  const trimmed = href.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, ''); // HTML's ASCII whitespace
  if (trimmed === '') return { kind: 'bad', raw: href, reason: 'empty' };
  const scheme = BAD_SCHEME.exec(trimmed.replace(SCHEME_NOISE, ''));
  if (scheme) return { kind: 'bad', raw: href, reason: scheme[1].toLowerCase() as BadReason };
  const u = resolveHref(trimmed, base);
  if (!u) return { kind: 'bad', raw: href, reason: 'unparseable' };
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { kind: 'bad', raw: href, reason: 'unsupported-scheme' };
  }
  const key = urlKey(u, site.mode, site.sessionIds);
  const v = siteVerdict(u, site.rule, site.nested);
  if (v.kind === 'in') return { kind: 'internal', url: fetchUrl(u), key };
  if (v.kind === 'held') return { kind: 'internal', url: fetchUrl(u), key, held: v.note };
  return { kind: 'external', url: fetchUrl(u), key, host: hostKey(u.hostname) };
}
