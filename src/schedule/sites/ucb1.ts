import { bonus, indexPolicy, mean } from './common.js';
import type { Policy } from './policy.js';

/**
 * R3, UCB1 as the article runs it: m pages on every site in turn, then one page at a time on
 * the open site maximizing xbar(i)/Xmax + sqrt(2 ln n / t(i)), where n = pages pulled so far
 * (history length), t(i) = the site's pulls, Xmax = the largest single-page reward seen on any
 * site (the first term is 0 while Xmax = 0). Ties: lowest id.
 *
 * t(i) and n include in-flight pulls (that page IS being spent on the site, so its exploration
 * bonus should already shrink); xbar(i) uses completed pulls only. Stateless: the warm-up is
 * read off the pull counts, everything else off the current statistics.
 */
export function ucb1(warmup: number): Policy {
  return indexPolicy(warmup, (a, { xmax, logN }) => (xmax > 0 ? mean(a) / xmax : 0) + bonus(logN, a.pulls));
}
