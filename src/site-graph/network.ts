import type { GraphEdge, GraphNode, NodeLevel } from './site-graph.js';
import { layOut } from './layout.js';

/** A node as it is drawn: where, how big, what colour. */
export interface NetworkNode {
  id: string;
  label: string;
  site: boolean;
  /** the site's group; '' for outside nodes */
  group: string;
  /** sites of the crawl linking to this node */
  sites: number;
  x: number;
  y: number;
  size: number;
  color: string;
}

export interface NetworkEdge {
  source: string;
  target: string;
  /** distinct external URLs */
  urls: number;
}

/** The site graph laid out: the one picture the report draws and the GEXF and GraphML exports carry. */
export interface Network {
  level: NodeLevel;
  nodes: NetworkNode[];
  edges: NetworkEdge[];
  /** the site groups and their colours, in the sites' order */
  groups: { name: string; color: string }[];
  /** the co-link rule's default: an outside node is shown when at least this many sites link it */
  k: number;
  /** outside nodes left out of the picture (the least linked, past MAX_OUTSIDE) */
  omitted: number;
}

/** Past this many outside nodes, the least linked are left out: a picture and a layout of a few seconds. */
export const MAX_OUTSIDE = 10_000;
/** The co-link rule's default threshold. */
export const DEFAULT_K = 2;

// Tableau 10 without its grey, which marks outside nodes.
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
export const OUTSIDE_COLOR = '#b8b4b0';
export const groupColor = (i: number): string => PALETTE[i] ?? `hsl(${Math.round((i * 137.508) % 360)} 55% 50%)`;

/** Area grows with the number of linking sites; a site never shrinks below a visible dot. */
export const nodeSize = (site: boolean, sites: number): number => Math.round(((site ? 5 : 2) + 2 * Math.sqrt(sites)) * 100) / 100;

/**
 * The network of the crawl's sites and the outside nodes they link (pure): sizes by linking
 * sites, sites coloured by group, edges weighted by distinct URLs, and a deterministic layout.
 * With one site the co-link rule would hide everything, so its default threshold drops to 1.
 */
export function network(nodes: readonly GraphNode[], edges: readonly GraphEdge[], level: NodeLevel): Network {
  const sites = nodes.filter((n) => n.kind === 'site');
  const outside = nodes
    .filter((n) => n.kind !== 'site')
    .sort((a, b) => b.sites_linking - a.sites_linking || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const kept = outside.slice(0, MAX_OUTSIDE);
  const groupNames = [...new Set(sites.map((s) => s.group))];
  const colorOf = new Map(groupNames.map((g, i) => [g, groupColor(i)]));
  const drawn = [...sites, ...kept];
  const ids = new Set(drawn.map((n) => n.id));
  const shown = edges.filter((e) => ids.has(e.source) && ids.has(e.target) && e.source !== e.target);
  const at = layOut(drawn.map((n) => n.id), shown.map((e) => ({ source: e.source, target: e.target, weight: e.urls })));
  return {
    level,
    nodes: drawn.map((n) => {
      const site = n.kind === 'site';
      return {
        id: n.id, label: n.label, site, group: site ? n.group : '', sites: n.sites_linking, ...at.get(n.id)!,
        size: nodeSize(site, n.sites_linking), color: site ? colorOf.get(n.group)! : OUTSIDE_COLOR,
      };
    }),
    edges: shown.map((e) => ({ source: e.source, target: e.target, urls: e.urls })),
    groups: groupNames.map((name) => ({ name, color: colorOf.get(name)! })),
    k: Math.min(DEFAULT_K, Math.max(1, sites.length)),
    omitted: outside.length - kept.length,
  };
}
