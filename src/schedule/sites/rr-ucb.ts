import { argmax, bonus, openArms, warmupPick } from './common.js';
import type { Policy } from './policy.js';
import { recentMean } from './sw-ucb.js';

/** One pull in EXPLORE_EVERY explores; measured on the real-web trace (4 and 7 were worse, 5 and 6 alike). */
export const EXPLORE_EVERY = 5;
/** Weight of the UCB bonus against the scaled mean; 0.2 to 0.5 measured alike. */
const C = 0.3;

/**
 * Round-robin exploration plus sliding-window UCB: the default, chosen on real websites.
 * - Every EXPLORE_EVERY-th pull (history length a multiple of it) goes to the open site with the
 *   fewest pulls. On real sites the pages that pay (a "links" page, release notes, a list of
 *   extensions) sit anywhere in a site's breadth-first order: sphinx-doc.org's at page 14,
 *   docs.dask.org's at 78, docs.python.org's at 315. No reward seen before them predicts them, so
 *   a steady share of the budget must keep walking every site.
 * - The other pulls: UCB over each site's own last w pages, with the mean scaled by the best
 *   open site's recent mean — not by the largest single page, as sw-ucb and R3 do: one hub page
 *   with thousands of links would make every site's scaled mean ~0, and UCB would turn into
 *   round-robin just when there is a site worth exploiting.
 * Stateless (the phase is read off the history length), so a resumed crawl picks the same.
 */
export function roundRobinUcb(window: number, warmup: number): Policy {
  return ({ arms, history }) => {
    const open = openArms(arms);
    if (open.length === 0) return null;
    const first = warmupPick(open, warmup);
    if (first !== null) return first;
    if (history.length % EXPLORE_EVERY === 0) return argmax(open, (a) => -a.pulls);
    let best = 0;
    for (const a of open) best = Math.max(best, recentMean(a.rewards, window));
    const logN = Math.log(history.length);
    return argmax(open, (a) => (best > 0 ? recentMean(a.rewards, window) / best : 0) + C * bonus(logN, Math.min(a.pulls, window)));
  };
}
