import { argmax, openArms } from './common.js';
import type { Policy } from './policy.js';

/** A standard normal from two uniforms (Box–Muller); 1 - u keeps the logarithm finite. */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Gamma(shape, rate 1) by Marsaglia & Tsang (2000), with the u^(1/a) boost for shape < 1. */
export function gammaSample(shape: number, random: () => number): number {
  if (shape < 1) return gammaSample(shape + 1, random) * Math.pow(random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(random);
    let v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

export interface ThompsonOptions {
  /** Prior mean of a site's links per page. */
  priorMean: number;
  /** Prior weight, in pages: how many pages of evidence the prior is worth. */
  priorWeight: number;
}

/**
 * Thompson sampling with a Gamma–Poisson model: site i's links per page ~ Poisson(λi), prior
 * λi ~ Gamma(priorMean·priorWeight, rate priorWeight), posterior Gamma(shape + s(i), rate +
 * completed pulls). Draw one λi per open site (id order, from `input.random` only, so the pick
 * is a function of seed and history length and a resume replays it) and pull the largest.
 * No warm-up is needed: an unpulled site draws from the prior. In-flight pages have no outcome
 * yet and do not move the posterior. Ties (measure zero) go to the lowest id.
 */
export function thompson({ priorMean, priorWeight }: ThompsonOptions): Policy {
  return ({ arms, random }) => {
    const open = openArms(arms);
    if (open.length === 0) return null;
    const draws = new Map(open.map((a) => [a.id, gammaSample(priorMean * priorWeight + a.rewardSum, random) / (priorWeight + a.rewards.length)]));
    return argmax(open, (a) => draws.get(a.id)!);
  };
}
