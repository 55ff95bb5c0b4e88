import { domainOf, overlapsOf, siteIdentity, type SiteRule } from './scope.js';

/**
 * Which sites a site's bounds meet (overlapsOf), answered from an index rather than by comparing
 * with every site of its registrable domain: a study of 50,000 blogs under one host compared each
 * with all the others and took minutes. Answers are overlapsOf's over the sites' own order.
 *
 * Two sites overlap when the probe URL of the more specific one (its host and path) lies in the
 * other's bounds. A domain site holds every site of its domain, so it is compared with its group;
 * a host or prefix site can only meet its domain's domain sites and the host and prefix sites on
 * its own host, which the index finds by host.
 */
export class SiteOverlaps<T extends { rule: SiteRule }> {
  private readonly order = new Map<T, number>();
  private readonly groups = new Map<string, T[]>();
  private readonly domainSites = new Map<string, T[]>();
  /** host and prefix sites by their identity: those whose bounds may hold a probe on that host */
  private readonly byIdentity = new Map<string, T[]>();
  /** host and prefix sites by their probe's host identity: those a site of that identity may hold */
  private readonly byProbeHost = new Map<string, T[]>();

  constructor(sites: readonly T[]) {
    sites.forEach((s, i) => {
      this.order.set(s, i);
      const domain = domainOf(s.rule);
      push(this.groups, domain, s);
      if (s.rule.scope === 'domain') push(this.domainSites, domain, s);
      else {
        push(this.byIdentity, s.rule.identity, s);
        push(this.byProbeHost, probeHost(s.rule), s);
      }
    });
  }

  /** overlapsOf(rule, the sites of its domain). */
  of(rule: SiteRule): { within: T[]; holding: T[] } {
    const domain = domainOf(rule);
    if (rule.scope === 'domain') return overlapsOf(rule, this.groups.get(domain) ?? []);
    const near = new Set([...(this.domainSites.get(domain) ?? []), ...(this.byIdentity.get(probeHost(rule)) ?? []), ...(this.byProbeHost.get(rule.identity) ?? [])]);
    return overlapsOf(rule, [...near].sort((a, b) => this.order.get(a)! - this.order.get(b)!));
  }
}

/** The host identity of the URL overlaps() probes a site with. */
const probeHost = (r: SiteRule) => siteIdentity(new URL(`http://${r.identity}${r.path ?? '/'}`).hostname, 'host');

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
