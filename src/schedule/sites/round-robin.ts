import { openArms, unfinishedBatch } from './common.js';
import type { Policy } from './policy.js';

/**
 * The article's "quantum" scheduler: q pages of each site in turn (sites in id order), so
 * every site gets partly crawled before the budget runs out. A site's turn is unfinished while
 * its own pull count is not a multiple of q; otherwise the site with the fewest turns so far
 * goes next (ties: lowest id), which is the cyclic order 1, 2, 3, 1, 2, 3... A site that
 * closes loses the rest of its turn. Derived from pull counts alone, so a resumed crawl
 * continues the turn, and several workers interleave without breaking it.
 */
export function roundRobin(quantum: number): Policy {
  return ({ arms }) => {
    const open = openArms(arms);
    if (open.length === 0) return null;
    const inTurn = unfinishedBatch(open, quantum);
    if (inTurn !== null) return inTurn;
    let next = open[0]!;
    for (const a of open) if (Math.floor(a.pulls / quantum) < Math.floor(next.pulls / quantum)) next = a;
    return next.id;
  };
}
