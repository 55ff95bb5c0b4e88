import { bonus, indexPolicy } from './common.js';
import type { Policy } from './policy.js';

/** Mean of a site's last w completed rewards: its yield at its current crawl depth. */
export function recentMean(rewards: readonly number[], w: number): number {
  const from = Math.max(0, rewards.length - w);
  if (from === rewards.length) return 0;
  let s = 0;
  for (let i = from; i < rewards.length; i++) s += rewards[i]!;
  return s / (rewards.length - from);
}

/**
 * Sliding-window UCB (after Garivier & Moulines 2008) over each site's OWN recent pages. A
 * breadth-first crawl drifts with depth (a site's top pages link out differently from its
 * deep ones), and that drift happens only while the site itself is crawled, so the window is
 * the site's last w pages, not the crawl's last w pages: a site left alone keeps the estimate
 * it had when it was left. Index: recentMean(i)/Xmax + sqrt(2 ln n / min(t(i), w)) — R3 with
 * both the mean and the count taken over the window. Capping the count keeps every site's
 * bonus from shrinking below sqrt(2 ln n / w), so a site whose early pages were poor is still
 * retried now and then (what sinks R2), and a site whose yield fell is left sooner than its
 * whole-history mean would say. m pages on every site first; ties lowest id; stateless.
 */
export function slidingWindowUcb(window: number, warmup: number): Policy {
  return indexPolicy(warmup, (a, { xmax, logN }) => (xmax > 0 ? recentMean(a.rewards, window) / xmax : 0) + bonus(logN, Math.min(a.pulls, window)));
}
