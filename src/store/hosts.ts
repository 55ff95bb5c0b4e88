import { hostInSite, type SiteRule } from '../url/scope.js';
import type { Db } from '../db/db.js';
import { byStore } from '../db/dialect.js';
import { readSettings } from './settings.js';
import { siteRules } from './sites.js';
import { registerUrlFunctions } from '../db/url-functions.js';
import { hostDomain, urlHost } from '../url/host.js';

export type HostLevel = 'host' | 'domain';

/** One line of `beebot hosts`: an outside host (or registrable domain) the target sites link to. */
export interface CompanionHost {
  /** the host name, or the registrable domain with `by: 'domain'` (punycode, as stored) */
  name: string;
  /** by host: its registrable domain; by domain: the same as name */
  domain: string;
  /** distinct host names under it (1 by host) */
  hosts: number;
  /** target sites linking to it */
  sites: number;
  /** external link rows pointing to it ((page, URL) pairs) */
  links: number;
  /** distinct pages linking to it */
  pages: number;
  /** the target site it belongs to, when a target site links to another one */
  targetSiteId: number | null;
}

export interface HostQuery {
  by: HostLevel;
  siteId: number | null;
  minSites: number;
  limit: number | null;
}

/**
 * The companion set: every host the target set links to, with how many links and how many target
 * sites point at it, most shared first (sites, then links, then name). Aggregated by SQLite, which
 * spills big GROUP BYs to disk; only the result rows reach JavaScript.
 */
export function companionHosts(db: Db, q: HostQuery): CompanionHost[] {
  const rows = byStore(db, { sqlite: aggregateInSqlite, pg: aggregateInJs })(db, q);
  const target = targetSiteOf(siteRules(db, readSettings(db)), q.by);
  return rows.map((r) => ({ ...r, domain: q.by === 'host' ? hostDomain(r.name) : r.name, targetSiteId: target(r.name) }));
}

type Counted = Omit<CompanionHost, 'domain' | 'targetSiteId'>;

function aggregateInSqlite(db: Db, q: HostQuery): Counted[] {
  registerUrlFunctions(db);
  const name = q.by === 'host' ? 'beebot_host(e.url)' : 'beebot_domain(e.url)';
  const rows = db
    .prepare(
      `SELECT ${name} AS name, count(DISTINCT beebot_host(e.url)) AS hosts, count(DISTINCT e.site_id) AS sites,
              count(*) AS links, count(DISTINCT e.page_id) AS pages
       FROM external_links e ${q.siteId !== null ? 'WHERE e.site_id = @site' : ''}
       GROUP BY 1 HAVING name IS NOT NULL AND sites >= @minSites
       ORDER BY sites DESC, links DESC, name ${q.limit !== null ? `LIMIT ${Math.floor(q.limit)}` : ''}`,
    )
    .all({ minSites: q.minSites, ...(q.siteId !== null ? { site: q.siteId } : {}) }) as Counted[];
  return rows;
}

/**
 * PostgreSQL has no beebot_host/beebot_domain (the Public Suffix List lives in JavaScript): the
 * link rows stream in and are grouped here, ordered as the SQLite query orders them (names are
 * ASCII punycode, so JavaScript's comparison is SQLite's binary one).
 */
function aggregateInJs(db: Db, q: HostQuery): Counted[] {
  const groups = new Map<string, { hosts: Set<string>; sites: Set<number>; pages: Set<number>; links: number }>();
  const rows = db
    .prepare(`SELECT e.url, e.site_id, e.page_id FROM external_links e ${q.siteId !== null ? 'WHERE e.site_id = ?' : ''}`)
    .raw()
    .iterate(...(q.siteId !== null ? [q.siteId] : [])) as IterableIterator<[string, number, number]>;
  for (const [url, site, page] of rows) {
    const host = urlHost(url);
    if (host === null) continue;
    const name = q.by === 'host' ? host : hostDomain(host);
    let g = groups.get(name);
    if (!g) groups.set(name, (g = { hosts: new Set(), sites: new Set(), pages: new Set(), links: 0 }));
    g.hosts.add(host);
    g.sites.add(site);
    g.pages.add(page);
    g.links++;
  }
  const out = [...groups]
    .map(([name, g]) => ({ name, hosts: g.hosts.size, sites: g.sites.size, links: g.links, pages: g.pages.size }))
    .filter((r) => r.sites >= q.minSites)
    .sort((a, b) => b.sites - a.sites || b.links - a.links || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return q.limit !== null ? out.slice(0, Math.max(0, Math.floor(q.limit))) : out;
}

/** Which target site a linked host (or domain) is part of, by the sites' bounds (a host holding several prefix sites: the first). */
function targetSiteOf(sites: { id: number; site: { url: string }; rule: SiteRule }[], by: HostLevel): (name: string) => number | null {
  const byDomain = new Map<string, number>();
  for (const s of [...sites].reverse()) byDomain.set(hostDomain(new URL(s.site.url).hostname), s.id); // lowest id wins
  return (name) => (by === 'host' ? sites.find((s) => hostInSite(name, s.rule))?.id : byDomain.get(name)) ?? null;
}
