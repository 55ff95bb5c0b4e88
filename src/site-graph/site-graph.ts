import { domainToUnicode } from 'node:url';
import { ownerOf, siteLabel, type SiteRule } from '../url/scope.js';
import type { Db } from '../db/db.js';
import { readSettings } from '../store/settings.js';
import { siteRules, type Site } from '../store/sites.js';
import { siteGraphRows } from '../store/site-graph-rows.js';
import { hostDomain, urlHost } from '../url/host.js';

export type NodeLevel = 'host' | 'domain';

export interface GraphNode {
  /** a target site's identity under the crawl scope (thin.test), or an outside host / domain */
  id: string;
  label: string;
  kind: 'site' | NodeLevel;
  /** the target site's group; 'external' for outside nodes (one partition colour in Gephi) */
  group: string;
  url: string;
  /** pages pulled from the site (0 for outside nodes) */
  pages: number;
  links_out: number;
  links_in: number;
  /** target sites linking to this node */
  sites_linking: number;
}

export interface GraphEdge {
  id: number;
  source: string;
  target: string;
  /** external link rows ((page, URL) pairs) from the source site to the target node */
  weight: number;
  /** distinct pages of the source site carrying those links */
  pages: number;
  /** distinct external URLs from the source site to the target node */
  urls: number;
}

export interface SiteGraph {
  level: NodeLevel;
  siteCount: number;
  /** the target sites' node ids, in the sites' order */
  siteIds: string[];
  /** Read once, in order: nodes() then edges() (one database cursor at a time). */
  nodes(): Iterable<GraphNode>;
  edges(): Iterable<GraphEdge>;
}

export const nodeColumns = ['id', 'label', 'kind', 'group', 'url', 'pages', 'links_out', 'links_in', 'sites_linking'] as const;
export const edgeColumns = ['source', 'target', 'weight', 'pages', 'type'] as const;

export const nodeRow = (n: GraphNode): unknown[] => nodeColumns.map((c) => n[c]);
// `type` lets Gephi's spreadsheet import read the edge list as directed.
export const edgeRow = (e: GraphEdge): unknown[] => [e.source, e.target, e.weight, e.pages, 'Directed'];

/**
 * The site graph for network analysis: nodes are the target sites and the outside hosts (or
 * registrable domains) they link to; a directed edge site → node carries the number of external
 * links. A linked host that belongs to a target site (same identity under the crawl scope) is that
 * site's node, so links between target sites become site → site edges. Nodes and edges are
 * aggregated by the database and streamed (store/site-graph-rows.ts): memory grows with the number of
 * edges written, not links.
 */
export function siteGraph(db: Db, level: NodeLevel): SiteGraph {
  const all = siteRules(db, readSettings(db));
  const sites = all.map((x) => x.site);
  const siteNode = new Map(all.map((x) => [siteLabel(x.rule), x.site]));
  const nodeOf = nodeFunction(all.map((x) => x.rule), level);
  const rows = siteGraphRows(db, nodeOf);

  return {
    level,
    siteCount: sites.length,
    siteIds: [...siteNode.keys()],
    *nodes() {
      const out = rows.linksOutBySite();
      const into = new Map<string, { links: number; sites: number }>();
      for (const [id, links, linking] of rows.linksPerNode()) {
        if (siteNode.has(id)) {
          into.set(id, { links, sites: linking });
          continue;
        }
        yield {
          id, label: domainToUnicode(id) || id, kind: level, group: 'external', url: '',
          pages: 0, links_out: 0, links_in: links, sites_linking: linking,
        };
      }
      for (const [id, s] of siteNode) {
        yield {
          id, label: s.short ?? new URL(s.url).hostname, kind: 'site', group: s.group ?? '', url: s.url,
          pages: s.pulls, links_out: out.get(s.id) ?? 0, links_in: into.get(id)?.links ?? 0, sites_linking: into.get(id)?.sites ?? 0,
        };
      }
    },
    *edges() {
      const source = new Map(all.map((x) => [x.id, siteLabel(x.rule)]));
      let id = 0;
      for (const [siteId, target, weight, pages, urls] of rows.linksPerSiteAndNode()) yield { id: id++, source: source.get(siteId)!, target, weight, pages, urls };
    },
  };
}

/** The node a linked URL counts for (pure: the sites' bounds and the node level): the site that owns it, else its host or domain. */
export function nodeFunction(rules: readonly SiteRule[], level: NodeLevel): (url: string) => string | null {
  const sites = rules.map((rule) => ({ rule }));
  return (url) => {
    const host = urlHost(url);
    if (host === null || host === '') return null;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    const owner = ownerOf(u, sites);
    if (owner) return siteLabel(owner.rule);
    return level === 'host' ? host : hostDomain(host);
  };
}
