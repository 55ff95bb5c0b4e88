import { oracleCurve } from './oracle.js';
import type { PolicyParams } from './registry.js';
import { makePolicy } from './registry.js';
import { simulate } from './simulate.js';

/** A recorded or synthetic site: its rewards in breadth-first order and its group. */
export interface TraceSite {
  name: string;
  group: string | null;
  rewards: readonly number[];
}

export interface CompareRow {
  policy: string;
  total: number;
  /** total / oracle total · 100 (100 when the oracle is 0: nothing could be found). */
  percent: number;
  /** cumulative[k]: links after k + 1 pulls. */
  cumulative: number[];
  /** regret[k] = oracle(k + 1) - cumulative[k]: what the best allocation of k + 1 pages beats it by. */
  regret: number[];
}

export interface Comparison {
  budget: number;
  oracle: number;
  rows: CompareRow[];
}

/**
 * Replay one set of sites under several policies and the exact oracle: the core of
 * `beebot simulate` and of the policy benchmark. Deterministic for a seed.
 */
export function compare(
  sites: readonly TraceSite[],
  budget: number,
  policies: readonly string[],
  options: { seed: number; params?: PolicyParams; /** oracleCurve of these sites for >= budget pages, to reuse */ curve?: Float64Array },
): Comparison {
  const sequences = sites.map((s) => s.rewards);
  const groups = sites.map((s) => s.group);
  const full = options.curve ?? oracleCurve(sequences, budget);
  const curve = full.subarray(0, Math.min(full.length, budget + 1));
  const oracle = curve[curve.length - 1]!;
  const rows = policies.map((policy) => {
    const { total, cumulative } = simulate(makePolicy(policy, options.params), sequences, budget, { seed: options.seed, groups });
    return { policy, total, percent: oracle === 0 ? 100 : (100 * total) / oracle, cumulative, regret: cumulative.map((c, k) => curve[k + 1]! - c) };
  });
  return { budget, oracle, rows };
}
