import type { Arm, Policy } from './policy.js';
import { randomFor } from './random.js';

export interface SimulateOptions {
  seed: number;
  /** Site groups (auto reads them); null when unknown. */
  groups?: readonly (string | null)[];
  /** Pulls already made (site indices), replayed first: continue a crawl from here. */
  history?: readonly number[];
}

export interface SimulateResult {
  /** Links collected by all pulls, the replayed history included. */
  total: number;
  /** Site index of every pull, the replayed history first. */
  picks: number[];
  /** cumulative[k] = links after k + 1 pulls. */
  cumulative: number[];
}

/**
 * Offline replay of a crawl at concurrency 1. Site i (arm id i) yields sequences[i][j] links on
 * its j-th pull and closes when its sequence is used up (an empty sequence = Not Available).
 * The PickInput is built as the crawler builds it: pulls, rewardSum, rewardMax, the rewards so
 * far, open = pages left, the history, budget N and random = randomFor(seed, history length).
 * Stops after N pulls or when the policy finds nothing open (every site exhausted).
 * Throws if the policy (or the given history) picks a site that is not open.
 */
export function simulate(policy: Policy, sequences: readonly (readonly number[])[], N: number, options: SimulateOptions): SimulateResult {
  const K = sequences.length;
  const rewards: number[][] = sequences.map(() => []);
  const sums = new Array<number>(K).fill(0);
  const maxes = new Array<number>(K).fill(0);
  const picks: number[] = [];
  const cumulative: number[] = [];
  let total = 0;
  const pull = (i: number) => {
    const seq = sequences[i];
    if (!Number.isInteger(i) || !seq || rewards[i]!.length >= seq.length) throw new Error(`pick ${picks.length}: site ${i} is not open`);
    const r = seq[rewards[i]!.length]!;
    rewards[i]!.push(r);
    sums[i]! += r;
    maxes[i] = Math.max(maxes[i]!, r);
    picks.push(i);
    total += r;
    cumulative.push(total);
  };
  for (const i of options.history ?? []) pull(i);
  while (picks.length < N) {
    // Each arm's arrays are the live ones: the policy reads them before they grow (it keeps nothing).
    const arms: Arm[] = sequences.map((seq, i) => ({
      id: i,
      pulls: rewards[i]!.length,
      rewardSum: sums[i]!,
      rewardMax: maxes[i]!,
      rewards: rewards[i]!,
      open: rewards[i]!.length < seq.length,
      group: options.groups?.[i] ?? null,
    }));
    const pick = policy({ arms, history: picks, budget: N, random: randomFor(options.seed, picks.length) });
    if (pick === null) {
      if (arms.some((a) => a.open)) throw new Error(`pick ${picks.length}: policy returned null while a site is open`);
      break;
    }
    pull(pick);
  }
  return { total, picks, cumulative };
}
