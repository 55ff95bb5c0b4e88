import type { Policy } from '../schedule/sites/policy.js';
import type { Order } from '../schedule/links/priority.js';
import type { WebGraph } from './web-graph.js';
import { pageSets, references, type PageSet, type References } from './references.js';
import { replay } from './replay.js';

/** What a crawl of N pages collected, and the references it is measured against. */
export interface Harvest {
  budget: number;
  pulls: number;
  /** distinct (site, external URL) pairs: what the references count */
  pairs: number;
  /** distinct external URLs and outside hosts of the whole crawl */
  urls: number;
  hosts: number;
  refs: References;
}

/** The references of a set of sites at these budgets (limit.py's, on the graph's pages). */
export function graphReferences(web: WebGraph, budgets: readonly number[], sets: readonly PageSet[] = pageSets(web)): Map<number, References> {
  return references(sets, budgets);
}

/** Replay one scheduler and order on the graph at N pages and measure it against the references. */
export function harvest(web: WebGraph, policy: Policy, order: Order, budget: number, refs: References, seed = 1): Harvest {
  const r = replay(web, { policy, order, budget, seed });
  const k = r.pulls.length - 1;
  return { budget, pulls: r.pulls.length, pairs: r.pairs[k] ?? 0, urls: r.urls[k] ?? 0, hosts: r.hosts[k] ?? 0, refs };
}

/** x as % of a reference (100 when the reference is 0: nothing could be found). */
export const percentOf = (x: number, ref: number): number => (ref === 0 ? 100 : (100 * x) / ref);
