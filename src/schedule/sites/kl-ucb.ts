import { indexPolicy, mean } from './common.js';
import type { Policy } from './policy.js';

/** KL divergence between Poisson laws of means p and q (the reward is a count of links). */
export function poissonKL(p: number, q: number): number {
  if (q <= 0) return p === 0 ? 0 : Infinity;
  return p === 0 ? q : q - p + p * Math.log(p / q);
}

/** Largest q >= p with poissonKL(p, q) <= delta, by bisection (KL grows in q above p). */
export function klUpper(p: number, delta: number): number {
  if (!(delta > 0)) return delta === 0 ? p : Infinity;
  let lo = p;
  let hi = p + delta + Math.sqrt(delta * delta + 2 * p * delta) + 1;
  while (poissonKL(p, hi) <= delta) hi *= 2; // the guess above is a bound already; be safe
  for (let i = 0; i < 60 && hi - lo > 1e-12 * (1 + hi); i++) {
    const mid = (lo + hi) / 2;
    if (poissonKL(p, mid) <= delta) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * KL-UCB for counts (Garivier & Cappé 2011, Poisson family): m pages on every site in turn,
 * then one page on the open site with the largest upper bound q such that
 * t(i) · KL(xbar(i), q) <= ln n (the c·ln ln n term dropped, as the authors advise in practice).
 * Unlike R3 it needs no Xmax: the Poisson KL is on the scale of the counts themselves, so one
 * page with hundreds of links does not flatten every other site's mean to zero.
 * t(i) and n include in-flight pulls, xbar(i) completed ones; ties lowest id; stateless.
 */
export function klUcb(warmup: number): Policy {
  return indexPolicy(warmup, (a, { logN }) => (a.pulls === 0 ? Infinity : klUpper(mean(a), logN / a.pulls)));
}
