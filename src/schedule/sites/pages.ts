import type { Arm, Policy } from './policy.js';

/**
 * One scheduler over pages: the open site whose next page is worth most (Arm.next: with
 * --order value, the page's predicted new external URLs, optimistic for what the site has not
 * tried), ties to the site with the fewest pulls, then the lowest id. Sites are not arms with
 * a past of their own here: the order's model says where the next links are, in one unit for
 * every site, so the crawl spends each pull on the best page it can reach. Without values (an
 * unordered crawl) it is the fewest-pulls rule, an even split.
 */
export function pages(): Policy {
  // one pass over the arms, ties broken by id itself: no list of the open ones to make at each pick
  const pick: Policy = ({ arms }) => {
    let best: Arm | undefined;
    for (const a of arms) {
      if (!a.open) continue;
      if (!best || ranksBefore(a.next ?? 0, a, best.next ?? 0, best)) best = a;
    }
    return best?.id ?? null;
  };
  // a chooser that keeps the open arms in this rank may answer without the pass (ranked-arms.ts)
  return Object.assign(pick, { byWorth: true as const });
}

/**
 * The pages policy's rank: an arm worth `v` comes before one worth `w` when it is worth more,
 * then when it has fewer pulls, then when its id is lower. A total order on distinct ids (worths
 * are numbers, never NaN), so the first arm is the same whatever the order they are read in.
 */
export function ranksBefore(v: number, a: Arm, w: number, b: Arm): boolean {
  return v > w || (v === w && (a.pulls < b.pulls || (a.pulls === b.pulls && a.id < b.id)));
}
