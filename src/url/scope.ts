import { getDomain } from 'tldts';
import { matchesPattern, type UrlPattern } from './url-pattern.js';

/** What a site is: one host (www. ignored), a registrable domain with its subdomains, or a URL prefix. */
export type Scope = 'host' | 'domain' | 'prefix';
export const scopes: readonly Scope[] = ['host', 'domain', 'prefix'];

/**
 * The site identity of a hostname (as in `new URL(x).hostname`) under a host or domain scope.
 * - 'host': lowercased, one trailing '.' and ONE leading 'www.' removed: www.spbu.ru = spbu.ru,
 *   but math.spbu.ru is another site. (The trailing dot is the same DNS name; tldts drops it too.)
 * - 'domain': the registrable domain by the Public Suffix List, private section included, so
 *   math.spbu.ru → spbu.ru while a.github.io ≠ b.github.io. tldts applies the PSL's implicit '*'
 *   rule to unknown TLDs (a.big.test → big.test); it returns null for IPs, localhost, single
 *   labels and bare public suffixes (github.io), which fall back to the 'host' rule.
 */
export function siteIdentity(hostname: string, scope: 'host' | 'domain'): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const byHost = host.startsWith('www.') ? host.slice(4) : host;
  if (scope === 'host') return byHost;
  return getDomain(host, { allowPrivateDomains: true }) ?? byHost;
}

/**
 * One site's bounds. `identity`: the host identity (host and prefix sites) or the registrable
 * domain (domain sites); `path`: a prefix site's path prefix, null otherwise. `include` and
 * `exclude` narrow what of the site is fetched (see siteVerdict).
 */
export interface SiteRule {
  scope: Scope;
  identity: string;
  path: string | null;
  include: readonly UrlPattern[];
  exclude: readonly UrlPattern[];
}

/**
 * The rule of a seed under a scope. A prefix is the seed's path: '/dept/' as typed, a file's
 * directory ('/dept/index.html' → '/dept/'), and a last segment without a dot taken as a
 * directory ('/dept' → '/dept/'), so /department is not inside /dept.
 */
export function siteRule(seed: URL, scope: Scope, patterns: { include?: readonly UrlPattern[]; exclude?: readonly UrlPattern[] } = {}): SiteRule {
  const include = patterns.include ?? [];
  const exclude = patterns.exclude ?? [];
  if (scope !== 'prefix') return { scope, identity: siteIdentity(seed.hostname, scope), path: null, include, exclude };
  const p = seed.pathname;
  const last = p.slice(p.lastIndexOf('/') + 1);
  const path = last === '' ? p : last.includes('.') ? p.slice(0, p.length - last.length) : `${p}/`;
  return { scope, identity: siteIdentity(seed.hostname, 'host'), path, include, exclude };
}

/** Is a hostname part of the site (its path aside)? Host and prefix sites: the host, www. ignored; domain sites: any host of the domain. */
export function hostInSite(hostname: string, rule: SiteRule): boolean {
  return siteIdentity(hostname, rule.scope === 'domain' ? 'domain' : 'host') === rule.identity;
}

/** Is a URL inside the site's bounds (host or domain, and path prefix), include/exclude aside? */
export function inSite(u: URL, rule: SiteRule): boolean {
  if (!hostInSite(u.hostname, rule)) return false;
  return rule.path === null || u.pathname.startsWith(rule.path) || u.pathname === rule.path.slice(0, -1);
}

/** How specific a site's bounds are: a prefix (the longer the more) over a host over a domain. */
export function specificity(rule: SiteRule): number {
  return rule.scope === 'domain' ? 0 : rule.scope === 'host' ? 1 : 2 + rule.path!.length;
}

/**
 * A rule's bounds as a key: two rules with equal keys would be the same site (a seed for the
 * second one is a duplicate), and a seed file's rows are checked against a map of them.
 */
export function boundsKey(r: SiteRule): string {
  return JSON.stringify([r.scope, r.identity, r.path]);
}

/** The site's name as the site graph and reports key it: the identity, and a prefix's path. */
export function siteLabel(rule: SiteRule): string {
  return rule.path === null ? rule.identity : rule.identity + rule.path;
}

/**
 * The site that owns a URL among several: of those whose bounds hold it, the most specific (the
 * longest prefix; a prefix over its host; a host over its domain); the first listed on a tie.
 */
export function ownerOf<T extends { rule: SiteRule }>(u: URL, sites: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const s of sites) if (inSite(u, s.rule) && (!best || specificity(s.rule) > specificity(best.rule))) best = s;
  return best;
}

/** The other sites that can own URLs inside this one's bounds: the more specific ones that overlap it. */
export function nestedSites(rule: SiteRule, all: readonly SiteRule[]): SiteRule[] {
  return all.filter((o) => o !== rule && specificity(o) > specificity(rule) && overlaps(rule, o));
}

/** The registrable domain a site lies in: two sites can only overlap inside one. */
export function domainOf(rule: SiteRule): string {
  return rule.scope === 'domain' ? rule.identity : siteIdentity(rule.identity, 'domain');
}

/**
 * The sites by the registrable domain they lie in, in their order: what a site may overlap is
 * its domain's group, not every site (thousands of seeds compared each with all took minutes).
 */
export function sitesByDomain<T extends { rule: SiteRule }>(sites: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const s of sites) {
    const d = domainOf(s.rule);
    const g = groups.get(d);
    if (g) g.push(s);
    else groups.set(d, [s]);
  }
  return groups;
}

/**
 * How a site's bounds meet the other sites': `within`, the less specific sites holding it (its
 * pages are its own, not theirs); `holding`, the more specific ones inside it (their pages are
 * theirs, not its). Links between a site and any of them are external to both.
 */
export function overlapsOf<T extends { rule: SiteRule }>(rule: SiteRule, sites: readonly T[]): { within: T[]; holding: T[] } {
  const within = sites.filter((o) => o.rule !== rule && specificity(o.rule) < specificity(rule) && overlaps(o.rule, rule));
  const holding = sites.filter((o) => o.rule !== rule && specificity(o.rule) > specificity(rule) && overlaps(rule, o.rule));
  return { within, holding };
}

function overlaps(outer: SiteRule, inner: SiteRule): boolean {
  const probe = new URL(`http://${inner.identity}${inner.path ?? '/'}`);
  return inSite(probe, outer);
}

export type SiteVerdict =
  /** the site's: fetched */
  | { kind: 'in' }
  /** the site's, but left out by its include/exclude patterns: stored, never fetched */
  | { kind: 'held'; note: string }
  /** not the site's: outside its bounds, or owned by a more specific site nested in it */
  | { kind: 'out' };

/**
 * THE decision of what a URL is to a site: inside its bounds and not owned by a site nested in
 * them, then narrowed by its patterns (an exclude wins over an include; with includes, a URL
 * must match one).
 */
export function siteVerdict(u: URL, rule: SiteRule, nested: readonly SiteRule[]): SiteVerdict {
  if (!inSite(u, rule)) return { kind: 'out' };
  for (const o of nested) if (inSite(u, o)) return { kind: 'out' };
  const ex = rule.exclude.find((p) => matchesPattern(u, p));
  if (ex) return { kind: 'held', note: `excluded by ${ex.source}` };
  if (rule.include.length && !rule.include.some((p) => matchesPattern(u, p))) return { kind: 'held', note: 'not included' };
  return { kind: 'in' };
}
