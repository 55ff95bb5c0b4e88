import type { FoundLinks, Hold } from './found-links.js';
import { settleInternal, type LinkSettings, type SiteScope } from './link-fate.js';
import { urlKey } from '../url/url.js';
import { canonicalLink } from '../params/canonical.js';
import type { SiteParamRules } from '../params/rules.js';

/**
 * What a page's classified links become before they are stored (pure): its internal links settled
 * (settleInternal), then at most max-links-per-page distinct links kept (capLinks). `note` says
 * what the cap cut, for the fetch log; null when nothing was cut. The links are settled in place.
 */
export function finalLinks(links: FoundLinks, scope: SiteScope, s: LinkSettings, params?: SiteParamRules): { links: FoundLinks; note: string | null } {
  // Settled first: the cap keeps pages before the files and traps it would never fetch.
  settleInternal(links.internal, scope, s, params);
  const cap = s['max-links-per-page'];
  if (links.internal.length + links.external.length + links.bad.length <= cap) return { links, note: null };
  return capLinks(links, cap);
}

/**
 * The key a URL of the site is stored under: its canonical key under the site's parameter rules
 * when they keep it, else its key as linkFate gives it (a URL the rules ignore keeps that key).
 */
export function linkKey(url: string, scope: SiteScope, params?: SiteParamRules): string {
  const c = params ? canonicalLink(url, params, scope.mode, scope.sessionIds) : null;
  return c?.kind === 'kept' ? c.key : urlKey(new URL(url), scope.mode, scope.sessionIds);
}

/** What a dropped held link is called in the cap's note. */
const HELD_NAMES: Record<Hold['status'], string> = { file: 'files', trap: 'traps', ignored: 'ignored', excluded: 'excluded' };

/**
 * Keep at most `cap` distinct links of a page (in page order), and say what was cut. Repeats
 * collapse first, as the store would collapse them (the first of each key is the one it keeps),
 * so a link repeated 10,000 times counts once. Then what the user counts keeps its place:
 * external links first, then internal pages (how the crawl finds more of them), then the internal
 * links held unfetched (files, traps), then bad links. The note is null when the distinct links
 * fit. Only pages over the cap come here, so an ordinary page pays nothing for it.
 */
function capLinks(links: FoundLinks, cap: number): { links: FoundLinks; note: string | null } {
  const distinct = <T>(list: T[], key: (l: T) => string): T[] => {
    const seen = new Set<string>();
    return list.filter((l) => {
      const k = key(l);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  };
  const internal = distinct(links.internal, (l) => l.key);
  const external = distinct(links.external, (l) => l.key);
  const bad = distinct(links.bad, (l) => l.raw);
  const found = internal.length + external.length + bad.length;
  if (found <= cap) return { links: { internal, external, bad }, note: null };
  let room = cap;
  const dropped = new Map<string, number>();
  const take = <T>(list: T[], name: (l: T) => string): T[] => {
    const kept = list.slice(0, room);
    room -= kept.length;
    for (let i = kept.length; i < list.length; i++) dropped.set(name(list[i]!), (dropped.get(name(list[i]!)) ?? 0) + 1);
    return kept;
  };
  const ext = take(external, () => 'external');
  const kept = new Set([...take(internal.filter((l) => !l.hold), () => 'internal'), ...take(internal.filter((l) => l.hold), (l) => HELD_NAMES[l.hold!.status])]);
  return {
    links: { external: ext, internal: internal.filter((l) => kept.has(l)), bad: take(bad, () => 'bad') },
    note: `links-capped: ${cap} of ${found} kept; dropped ${[...dropped].map(([name, n]) => `${n} ${name}`).join(', ')}`,
  };
}
