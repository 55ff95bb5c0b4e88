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
  return ({ arms }) => {
    let best: Arm | undefined;
    const v = (x: Arm) => x.next ?? 0;
    for (const a of arms) {
      if (!a.open) continue;
      if (!best || v(a) > v(best) || (v(a) === v(best) && (a.pulls < best.pulls || (a.pulls === best.pulls && a.id < best.id)))) best = a;
    }
    return best?.id ?? null;
  };
}
