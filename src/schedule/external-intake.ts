import type { Rewards } from './sites/reward.js';

/**
 * What a pulled page's external links earn, counted once for the live store
 * (store/pull-writer.ts) and the offline replay (replay/replay-store.ts): a replay that counted
 * by a copy of these rules would earn other rewards than the crawl it stands for.
 */

/**
 * What one external link is new to. A URL known to the site has its host known to the site, and
 * what is known to the site is known to the store: only a URL new to the site is new to anything.
 */
export interface Newness {
  urlToSite: boolean;
  urlToStore: boolean;
  hostToSite: boolean;
  hostToStore: boolean;
}

/**
 * What the count reads of a store and tells it, for one pulled page `c`. `L` is an external link
 * of the page, `N` the store's answer of what it is new to. The store decides nothing.
 */
export interface ExternalStore<L, N extends Newness, C> {
  /** The (page, URL) pair stored; false when the store holds it already (or a user deleted it): it earns nothing. */
  store(c: C, l: L): boolean;
  /** What the link is new to, not yet recorded. Runs for every link: a store may hand back one reused answer. */
  ask(c: C, l: L): Readonly<N>;
  /** Record the link as `ask` answered, before the next is asked. */
  mark(c: C, n: Readonly<N>): void;
}

/** What the external links of a page brought: its rewards (schedule/sites/reward.ts), and what the whole store gained. */
export interface ExternalFound {
  rewards: Rewards;
  newUrls: number;
  newHosts: number;
}

/**
 * The page's external links, each stored, and counted by what it is new to: a pair stored pays
 * `pairs`, a URL new to the site `urls`, its host new to the site `hosts`; new to the store, the
 * live totals.
 */
export function takeExternal<L, N extends Newness, C>(store: ExternalStore<L, N, C>, c: C, links: readonly L[]): ExternalFound {
  let pairs = 0;
  let urls = 0;
  let hosts = 0;
  let newUrls = 0;
  let newHosts = 0;
  for (const l of links) {
    if (!store.store(c, l)) continue;
    pairs++;
    const n = store.ask(c, l);
    if (!n.urlToSite) continue;
    store.mark(c, n);
    urls++;
    if (n.urlToStore) newUrls++;
    if (n.hostToSite) hosts++;
    if (n.hostToStore) newHosts++;
  }
  return { rewards: { urls, hosts, pairs }, newUrls, newHosts };
}
