import { getDomain } from 'tldts';

export type Scope = 'host' | 'domain';

/**
 * The site identity of a hostname (as in `new URL(x).hostname`) under a scope.
 * - 'host': lowercased, one trailing '.' and ONE leading 'www.' removed: www.spbu.ru = spbu.ru,
 *   but math.spbu.ru is another site. (The trailing dot is the same DNS name; tldts drops it too.)
 * - 'domain': the registrable domain by the Public Suffix List, private section included, so
 *   math.spbu.ru → spbu.ru while a.github.io ≠ b.github.io. tldts applies the PSL's implicit '*'
 *   rule to unknown TLDs (a.big.test → big.test); it returns null for IPs, localhost, single
 *   labels and bare public suffixes (github.io), which fall back to the 'host' rule.
 */
export function siteIdentity(hostname: string, scope: Scope): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const byHost = host.startsWith('www.') ? host.slice(4) : host;
  if (scope === 'host') return byHost;
  return getDomain(host, { allowPrivateDomains: true }) ?? byHost;
}
