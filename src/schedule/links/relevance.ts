/**
 * How relevant a fetched page was, in [0, 1): the focused-crawling article's page relevance,
 * read for beebot's goal. A page that gave as many new external URLs as the site's pages do on
 * average (at least one) scores 1/2; none scores 0. Topic-focused crawls use the page's
 * similarity to the topic instead (src/schedule/focus). Pure.
 */
export function yieldRelevance(reward: number, siteMean: number): number {
  return reward <= 0 ? 0 : reward / (reward + Math.max(1, siteMean));
}

/** A page at least this relevant ends a tunnel (tunnel.ts) and passes on its own relevance. */
export const RELEVANT = 0.5;
