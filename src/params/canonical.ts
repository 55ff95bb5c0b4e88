import { fetchUrl, urlKey, type NormalizeMode } from '../url/url.js';
import type { SessionIds } from '../url/session-ids.js';
import { applyParamRules, type SiteParamRules } from './rules.js';

export type CanonicalLink =
  /** what to fetch and its key, after the rules */
  | { kind: 'kept'; url: string; key: string }
  | { kind: 'ignored'; note: string };

/**
 * An internal URL of a site under the site's parameter rules; null when its script path has none
 * (the URL and key stay as they were). The fetched URL is the canonical one too, so the content
 * fetched is the content the key names.
 */
export function canonicalLink(url: string, rules: SiteParamRules, mode: NormalizeMode, sessionIds?: SessionIds): CanonicalLink | null {
  const u = new URL(url);
  const v = applyParamRules(u.pathname, u.search, rules);
  if (v === null) return null;
  if (v.kind === 'ignored') return v;
  u.search = v.search;
  return { kind: 'kept', url: fetchUrl(u), key: urlKey(u, mode, sessionIds) };
}
