import { indexPolicy, mean } from './common.js';
import type { Policy } from './policy.js';

/** Sample variance (population form, as in Auer et al.) of a site's completed rewards. */
function variance(rewards: readonly number[], m: number): number {
  if (rewards.length === 0) return 0;
  let sq = 0;
  for (const r of rewards) sq += (r - m) * (r - m);
  return sq / rewards.length;
}

/**
 * UCB1-Tuned (Auer, Cesa-Bianchi, Fischer 2002): like R3 but the bonus uses each site's own
 * variance, sqrt(ln n / t · min(1/4, V)), V = var + sqrt(2 ln n / t). Rewards are scaled to
 * [0, 1] by Xmax as in R3 (the variance by Xmax²). A site whose pages all look alike gets a
 * small bonus, so the budget moves to sites whose yield is still uncertain or high.
 * t(i), n include in-flight pulls; mean and variance completed ones; ties lowest id; stateless.
 */
export function ucb1Tuned(warmup: number): Policy {
  return indexPolicy(warmup, (a, { xmax, logN }) => {
    if (a.pulls === 0) return Infinity;
    const m = mean(a);
    const x = xmax > 0 ? m / xmax : 0;
    const v = xmax > 0 ? variance(a.rewards, m) / (xmax * xmax) : 0;
    const explore = logN / a.pulls;
    return x + Math.sqrt(explore * Math.min(0.25, v + Math.sqrt(2 * explore)));
  });
}
