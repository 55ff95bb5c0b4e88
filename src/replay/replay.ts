import type { Policy } from '../schedule/sites/policy.js';
import { Scheduler } from '../schedule/scheduler.js';
import { ORDERS, type Order } from '../schedule/links/priority.js';
import type { ValueParams } from '../schedule/links/link-value.js';
import { defaults, type Settings } from '../store/settings.js';
import type { Site } from '../store/sites.js';
import type { WebGraph } from './web-graph.js';
import { ReplayStore, type ReplayPull } from './replay-store.js';
import { consequence, outcomeOf } from '../net/failure-rule.js';
import { queuedFate } from '../page/link-fate.js';

export interface ReplayOptions {
  policy: Policy;
  order: Order;
  /** pages (pulls) in all; null: until every site is exhausted */
  budget: number | null;
  seed?: number;
  /** the crawl's settings that decide which page comes next (default: beebot's defaults) */
  maxLevel?: number;
  deadEndAfter?: number | null;
  /** --order value's constants (default: as a live crawl has them, schedule/links/shipped-prior.ts) */
  value?: ValueParams;
}

export interface ReplayResult {
  pulls: ReplayPull[];
  /** after each pull: distinct (site, external URL) pairs, distinct external URLs, distinct outside hosts */
  pairs: number[];
  urls: number[];
  hosts: number[];
}

/**
 * A crawl of a page graph at --concurrency 1, offline: the crawl's own scheduler (src/schedule:
 * the policy, the page choice with its re-scoring and dead ends, the link order and link intake) over its
 * store in memory (replay-store.ts), pull after pull as the crawl loop (crawl/crawler.ts) makes
 * them. Deterministic for a seed; a few seconds for thousands of pulls.
 */
export function replay(web: WebGraph, o: ReplayOptions): ReplayResult {
  // a name from a script's options: one the crawl does not know would replay some other crawl
  if (!ORDERS.includes(o.order)) throw new Error(`no order "${o.order}" (orders: ${ORDERS.join(', ')})`);
  const maxLevel = o.maxLevel ?? defaults['max-level'];
  if (maxLevel > web.maxLevel) throw new Error(`the graph holds pages down to level ${web.maxLevel}, not ${maxLevel}`);
  const s: Settings = {
    ...defaults, budget: o.budget, order: o.order, seed: o.seed ?? defaults.seed, 'max-level': maxLevel,
    'dead-end-after': o.deadEndAfter === undefined ? defaults['dead-end-after'] : o.deadEndAfter, 'max-pages-per-site': null, concurrency: 1,
  };
  const sites: Site[] = web.sites.map((x, i) => ({
    id: i + 1, url: x.pages[0]!.url, name: x.host, short: x.host, group: x.group, unavailable: null, failures: 0, pulls: 0, rewardSum: 0, rewardMax: 0, deepest: null,
    scope: null, include: null, exclude: null, sitemaps: null, sitemapsRead: null, sitemapFiles: null, sitemapProblems: null,
  }));
  const scheduler = new Scheduler(sites, s, o.value);
  const { order, state } = scheduler;
  const store = new ReplayStore(web, order !== null, s.order === 'value', maxLevel);
  scheduler.open(store, queuedFate, () => 0, true);
  const { choice } = scheduler;
  const out: ReplayResult = { pulls: [], pairs: [], urls: [], hosts: [] };
  while (!state.budgetSpent()) {
    const id = scheduler.next(o.policy);
    if (id === null) break;
    const page = choice.pageFor(id);
    if (!page) throw new Error(`policy chose site ${id}, which is not open`);
    const site = state.sites.get(id)!;
    // robots.txt keeps it out: stored as skipped, no pull, and the policy is asked again (crawl/crawler.ts, a pull's pickedFate).
    if (store.denied(page)) {
      store.skip(page);
      choice.forget(id);
      continue;
    }
    state.history.push(id);
    state.inFlight.set(id, page.id);
    const pull = store.pull(page, order);
    // A start page that gives no HTML page makes its site Not Available (net/failure-rule.ts, as the crawl).
    const outcome = outcomeOf({ status: pull.status, httpStatus: pull.http, error: null });
    if (page.level === 0 && consequence(outcome).site !== 'nothing') site.unavailable = `start page: ${pull.status} ${pull.http ?? ''}`;
    state.record(site, page.url, { status: pull.status, httpStatus: pull.http }, pull.urls);
    state.inFlight.delete(id);
    choice.forget(id);
    out.pulls.push(pull);
    out.pairs.push(store.pairsSiteUrl);
    out.urls.push(store.urls.size);
    out.hosts.push(store.hosts.size);
  }
  return out;
}
