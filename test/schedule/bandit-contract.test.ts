import { describe, expect, it } from 'vitest';
import { oracle } from '../../src/schedule/sites/oracle.js';
import type { Arm, PickInput } from '../../src/schedule/sites/policy.js';
import { mulberry32, randomFor } from '../../src/schedule/sites/random.js';
import { makePolicy, policyNames, type PolicyParams } from '../../src/schedule/sites/registry.js';
import { simulate } from '../../src/schedule/sites/simulate.js';

// ONE contract for every registered policy, at its defaults and with small parameters (so that
// warm-ups, batches, turns and windows all end inside these short sequences).
const SMALL: PolicyParams = { quantum: 3, step: 3, warmup: 2, explore: 4, window: 5, priorWeight: 2 };
const GROUPS = ['university', 'institute', null, 'museum'];

interface Instance {
  seqs: number[][];
  groups: (string | null)[];
}

/** Small random site sets: some Not Available (no page), short and long, zero-heavy, a few big pages. */
function instances(count: number): Instance[] {
  const r = mulberry32(2024);
  const int = (n: number) => Math.floor(r() * n);
  return Array.from({ length: count }, () => {
    const K = 1 + int(6);
    const seqs = Array.from({ length: K }, () => Array.from({ length: r() < 0.15 ? 0 : 1 + int(25) }, () => (r() < 0.6 ? 0 : r() < 0.9 ? 1 + int(3) : 10 + int(40))));
    return { seqs, groups: seqs.map(() => GROUPS[int(GROUPS.length)]!) };
  });
}

const cases = policyNames.flatMap((name) => [
  { label: `${name} (defaults)`, name, params: {} as PolicyParams },
  { label: `${name} (small params)`, name, params: SMALL },
]);
const sets = instances(25);
const pages = (seqs: number[][]) => seqs.reduce((s, q) => s + q.length, 0);

describe.each(cases)('policy contract: $label', ({ name, params }) => {
  const fresh = () => makePolicy(name, params);

  it('picks only open sites and spends exactly min(N, total pages) (simulate throws otherwise)', () => {
    sets.forEach(({ seqs, groups }, i) => {
      const total = pages(seqs);
      for (const N of [1, Math.max(1, total - 3), total, total + 5]) {
        const run = simulate(fresh(), seqs, N, { seed: i, groups });
        expect(run.picks).toHaveLength(Math.min(N, total));
        expect(run.total).toBeLessThanOrEqual(oracle(seqs, N).total);
      }
    });
  });

  it('returns null exactly when no site is open, and otherwise an open one, in-flight pulls included', () => {
    const r = mulberry32(99);
    for (let trial = 0; trial < 200; trial++) {
      const K = 1 + Math.floor(r() * 5);
      const history: number[] = [];
      const arms: Arm[] = Array.from({ length: K }, (_, id) => {
        const rewards = Array.from({ length: Math.floor(r() * 12) }, () => (r() < 0.5 ? 0 : Math.floor(r() * 6)));
        const inFlight = r() < 0.3; // the crawler closes a site while its page is being fetched
        history.push(...rewards.map(() => id));
        if (inFlight) history.push(id);
        const sum = rewards.reduce((a, b) => a + b, 0);
        return { id: id * 3 + 1, pulls: rewards.length + (inFlight ? 1 : 0), rewardSum: sum, rewardMax: Math.max(0, ...rewards), rewards, open: !inFlight && r() < 0.7, group: GROUPS[Math.floor(r() * 4)]! };
      });
      // history holds arm ids, not indices
      const input: PickInput = { arms, history: history.map((i) => i * 3 + 1), budget: r() < 0.5 ? null : 50, random: randomFor(trial, history.length) };
      const pick = fresh()(input);
      if (arms.some((a) => a.open)) expect(arms.find((a) => a.id === pick)?.open).toBe(true);
      else expect(pick).toBeNull();
    }
  });

  it('is deterministic for a seed', () => {
    sets.slice(0, 10).forEach(({ seqs, groups }, i) => {
      const N = pages(seqs);
      expect(simulate(fresh(), seqs, N, { seed: i, groups }).picks).toEqual(simulate(fresh(), seqs, N, { seed: i, groups }).picks);
    });
  });

  it('is resumable: k pulls, then a fresh instance continues exactly as an uninterrupted run', () => {
    sets.forEach(({ seqs, groups }, i) => {
      const N = pages(seqs);
      const full = simulate(fresh(), seqs, N, { seed: i, groups });
      for (const k of new Set([0, 1, Math.floor(N / 3), Math.floor(N / 2), N - 1].filter((k) => k >= 0 && k <= N))) {
        const resumed = simulate(fresh(), seqs, N, { seed: i, groups, history: full.picks.slice(0, k) });
        expect(resumed.picks).toEqual(full.picks);
        expect(resumed.cumulative).toEqual(full.cumulative);
      }
    });
  });
});

describe('simulate', () => {
  it('builds the crawler\'s input: rewards so far, open while pages remain, budget N, randomFor(seed, pulls)', () => {
    const seen: PickInput[] = [];
    const spy = (input: PickInput) => {
      seen.push({ ...input, arms: input.arms.map((a) => ({ ...a, rewards: [...a.rewards] })), history: [...input.history], random: input.random });
      return input.arms.find((a) => a.open)?.id ?? null;
    };
    const run = simulate(spy, [[2, 5], [], [1]], 10, { seed: 4, groups: ['university', null, 'institute'] });
    expect(run).toEqual({ total: 8, picks: [0, 0, 2], cumulative: [2, 7, 8] });
    expect(seen).toHaveLength(4); // the 4th call finds nothing open and ends the replay
    expect(seen[1]!.arms[0]).toEqual({ id: 0, pulls: 1, rewardSum: 2, rewardMax: 2, rewards: [2], open: true, group: 'university' });
    expect(seen[2]!.arms.map((a) => a.open)).toEqual([false, false, true]);
    expect(seen[2]!.history).toEqual([0, 0]);
    expect(seen[2]!.budget).toBe(10);
    expect(seen[2]!.random()).toBe(randomFor(4, 2)());
  });

  it('rejects a pick of a closed site and a history that does not fit the sequences', () => {
    expect(() => simulate(() => 1, [[1], []], 2, { seed: 0 })).toThrow(/not open/);
    expect(() => simulate(makePolicy('ucb1'), [[1], [2]], 3, { seed: 0, history: [0, 0] })).toThrow(/not open/);
  });
});
