import type { Db } from '../db/db.js';
import { colinks, type CoLink } from './colinks.js';
import { interlinks, type Interlink } from './interlinks.js';
import { network, type Network } from './network.js';
import { siteGraph, type GraphEdge, type GraphNode, type NodeLevel } from './site-graph.js';

/** The crawl's network with its two tables, from one read of the site graph. */
export interface SiteNetwork {
  network: Network;
  /** the sites' node ids, in the sites' order (the matrix's rows and columns) */
  sites: string[];
  interlinks: Interlink[];
  colinks: CoLink[];
}

/** The site graph read whole and laid out (the shell around the pure network()): memory grows with its edges. */
export function readNetwork(db: Db, level: NodeLevel): SiteNetwork {
  const g = siteGraph(db, level);
  const nodes: GraphNode[] = [...g.nodes()];
  const edges: GraphEdge[] = [...g.edges()];
  return { network: network(nodes, edges, level), sites: g.siteIds, interlinks: interlinks(edges, g.siteIds), colinks: colinks(edges, g.siteIds) };
}
