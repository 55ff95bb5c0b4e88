import type { CueModel } from './model.js';
import { linkValue, VALUE_DEFAULTS, type ValueParams } from './link-value.js';
import { neighbourhood, potential } from './shark.js';
import { beyondCutoff } from './tunnel.js';
import { isTemplate } from './template.js';

/**
 * The orders inside a site. `bfs`: level, then discovery. `best-first`: beebot's method (below).
 * `plain`, `shark-search` and `otie` are the focused-crawling article's baselines, kept so that
 * `npm run bench:order` can measure them on the same crawler: the learned prediction alone,
 * Shark-Search's potential, and OTIE cash.
 */
export const ORDERS = ['bfs', 'best-first', 'plain', 'shark-search', 'otie', 'value'] as const;
export type Order = (typeof ORDERS)[number];

/** What a queued page carries for ordering (columns of `pages`, see store/priorities.ts). */
export interface LinkState {
  cues: readonly string[];
  /** OTIE cash received from fetched pages that link to it (cash.ts) */
  cash: number;
  /** Shark-Search inherited score (shark.ts) */
  inherit: number;
  /** tunnel distance from the last relevant page (tunnel.ts) */
  dist: number;
  /** fetched pages of the site that link to it (template.ts) */
  inlinks: number;
}

/**
 * `best-first`: a link whose cues predict more than PROMOTE times the site's mean yield of new
 * external URLs, and that is not template navigation, is promoted, the most promising first;
 * every other link waits in breadth-first order (priority 0), and links past the tunnel cutoff
 * after those (priority -1). So the crawl stays breadth-first until the site has shown which
 * words and places lead to its link pages, a hub behind dull pages is still reached in
 * breadth-first time, and long dull paths wait.
 *
 * Measured on the replay web (npm run bench:order; README has the tables): ordering by the
 * prediction alone (`plain`) starves group B's hubs; promoting above 2x the mean does not.
 * Shark-Search's inheritance and OTIE cash are left out of it: both lost to this rule.
 */
export const PROMOTE = 2;

/** Priority of a start page: before everything. */
export const START = Number.MAX_VALUE;

export function priorityOf(order: Order, model: CueModel, siteId: number, link: LinkState, sitePages: number, value: ValueParams = VALUE_DEFAULTS): number {
  const mean = model.siteMean(siteId);
  switch (order) {
    case 'bfs':
      return 0;
    case 'plain':
      return model.predict(siteId, link.cues);
    case 'value':
      return linkValue(model, siteId, link.cues, value);
    case 'shark-search':
      return potential(link.inherit, neighbourhood(model.predict(siteId, link.cues), mean));
    case 'otie':
      return link.cash;
    case 'best-first': {
      const p = model.predict(siteId, link.cues);
      if (p > PROMOTE * mean && !isTemplate(link.inlinks, sitePages)) return p;
      return beyondCutoff(link.dist) ? -1 : 0;
    }
  }
}

/**
 * In a topic-focused crawl (`--focus`) the orders read the topic instead of the yield: `neigh` is
 * the similarity of the link's words to the topic. `best-first` is then the article's method as
 * written: Shark-Search potential plus OTIE cash (split by potential, children.ts), links past the
 * tunnel cutoff after every other link of the site. Measured (README): it ties Shark-Search early
 * and loses recall later; both cash and the cutoff push late relevant pages behind dull ones.
 */
export function focusedPriority(order: Order, link: LinkState, neigh: number): number {
  switch (order) {
    case 'bfs':
      return 0;
    case 'plain':
    case 'value':
      return neigh;
    case 'shark-search':
      return potential(link.inherit, neigh);
    case 'otie':
      return link.cash;
    case 'best-first': {
      const p = potential(link.inherit, neigh) + link.cash;
      return beyondCutoff(link.dist) ? p - 2 : p;
    }
  }
}

/** A site's queued links are scored again every RESCORE_EVERY of its pulls (the model has learned more). */
export const RESCORE_EVERY = 25;

/**
 * A queue longer than QUEUE_SPAN pages is scored again whole k times less often, k = its length
 * over QUEUE_SPAN rounded up, and not after a pull that paid (that pass reads the whole queue to
 * find the pages it concerns): re-scoring then reads at most about QUEUE_SPAN / RESCORE_EVERY rows
 * a pull however long the queue grows (a crawl of a million URLs). On the replay web (sites under
 * 3,000 pages) 2,000 and 5,000 harvest alike (bench:harvest); on the bench web 2,000 halves the
 * writes.
 */
export const QUEUE_SPAN = 2000;

/**
 * The re-scoring a site's pull makes due: the whole queue every RESCORE_EVERY of its pulls;
 * after a pull that surprised the model (`surprised`: it paid far above the site's mean, or far
 * under its value, link-order.ts), the part of the queue it concerns ('paid').
 * `queued(atMost)`: the site's queue length, counted up to atMost (counting a long queue costs
 * what scoring it does); asked only on a pull that could be due.
 */
export function rescoreDue(sitePulls: number, surprised: boolean, queued: (atMost: number) => number): 'whole' | 'paid' | null {
  if (sitePulls > 0 && sitePulls % RESCORE_EVERY === 0) {
    const k = Math.max(1, Math.ceil(queued(Infinity) / QUEUE_SPAN));
    if ((sitePulls / RESCORE_EVERY) % k === 0) return 'whole';
  }
  return surprised && queued(QUEUE_SPAN + 1) <= QUEUE_SPAN ? 'paid' : null;
}
