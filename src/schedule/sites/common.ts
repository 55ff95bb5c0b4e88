import type { Arm, Policy } from './policy.js';

/**
 * Helpers shared by the policies. Everything here reads the PickInput only, so a policy built
 * from them keeps no state between calls and a re-created instance continues a crawl exactly.
 */

/** The arms that may be chosen now, in id order (so "first best" means "lowest id wins ties"). */
export function openArms(arms: readonly Arm[]): Arm[] {
  const open: Arm[] = [];
  let sorted = true;
  for (const a of arms) {
    if (!a.open) continue;
    if (open.length > 0 && a.id < open[open.length - 1]!.id) sorted = false;
    open.push(a);
  }
  // the crawl's arms come in id order: sorting 30,000 of them at every pick was a cost of its own
  return sorted ? open : open.sort((a, b) => a.id - b.id);
}

/**
 * Mean reward of the site's COMPLETED pulls. In-flight pulls have no outcome yet; counting
 * them as zeros would bias the estimate of a site just because it is being fetched.
 */
export function mean(a: Arm): number {
  return a.rewards.length === 0 ? 0 : a.rewardSum / a.rewards.length;
}

/** Largest single-page reward seen on any site (closed ones too): R3's Xmax. */
export function maxReward(arms: readonly Arm[]): number {
  let m = 0;
  for (const a of arms) m = Math.max(m, a.rewardMax);
  return m;
}

/** The open arm with the largest score; ties go to the lowest id (first in `open`). */
export function argmax(open: readonly Arm[], score: (a: Arm) => number): number {
  let best = open[0]!;
  let bestScore = score(best);
  for (let i = 1; i < open.length; i++) {
    const s = score(open[i]!);
    if (s > bestScore) [best, bestScore] = [open[i]!, s];
  }
  return best.id;
}

/**
 * Warm-up ("m pages on every site", sites in id order): the lowest-id open arm that has fewer
 * than m pulls, or null when every open arm has had its m. Counting each site's own pulls
 * instead of looking for the trailing run keeps this right at concurrency > 1, where the
 * crawler closes a site while its page is in flight and the history interleaves sites.
 */
export function warmupPick(open: readonly Arm[], m: number): number | null {
  return open.find((a) => a.pulls < m)?.id ?? null;
}

/**
 * Batches of n pages: a batch on a site is unfinished while that site's own pull count is not
 * a multiple of n (warm-up and every batch add exactly n unless the site closes, which ends
 * its batch). At concurrency 1 this is the trailing run of the history; unlike the trailing
 * run it survives interleaving when several batches are in flight at once.
 */
export function unfinishedBatch(open: readonly Arm[], n: number): number | null {
  return open.find((a) => a.pulls % n !== 0)?.id ?? null;
}

/** Sum of the first k completed rewards of a site (R1's "reward sum in the first phase"). */
export function prefixSum(a: Arm, k: number): number {
  let s = 0;
  const end = Math.min(k, a.rewards.length);
  for (let i = 0; i < end; i++) s += a.rewards[i]!;
  return s;
}

/** UCB1's sqrt(2 ln n / t); a pull-less site (only with warm-up 0) is tried first, as in UCB1. */
export function bonus(logN: number, t: number): number {
  return t === 0 ? Infinity : Math.sqrt((2 * logN) / t);
}

/** What an index policy's score may use besides the arm: Xmax and ln n of the whole crawl. */
export interface IndexContext {
  xmax: number;
  logN: number;
}

/**
 * The shape every UCB-style rule shares: m pages on every site first (warm-up), then one page at
 * a time on the open site with the largest index; ties lowest id. Stateless like the rest.
 */
export function indexPolicy(warmup: number, index: (a: Arm, c: IndexContext) => number): Policy {
  return ({ arms, history }) => {
    const open = openArms(arms);
    if (open.length === 0) return null;
    const first = warmupPick(open, warmup);
    if (first !== null) return first;
    const c = { xmax: maxReward(arms), logN: Math.log(history.length) };
    return argmax(open, (a) => index(a, c));
  };
}
