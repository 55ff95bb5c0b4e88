import { describe, expect, it } from 'vitest';
import type { Arm, Policy } from '../src/bandit/policy.js';
import { roundRobin } from '../src/bandit/round-robin.js';

const arm = (id: number, open = true): Arm => ({ id, pulls: 0, rewardSum: 0, rewardMax: 0, rewards: [], open, group: null });

/** Run a policy sequentially for n pulls; `closeAfter` closes a site after that many pulls. */
function run(policy: Policy, ids: number[], n: number, closeAfter: Record<number, number> = {}): number[] {
  const history: number[] = [];
  for (let i = 0; i < n; i++) {
    const count = (id: number) => history.filter((h) => h === id).length;
    const arms = ids.map((id) => arm(id, closeAfter[id] === undefined || count(id) < closeAfter[id]!));
    const pick = policy({ arms, history, budget: null, random: Math.random });
    if (pick === null) break;
    history.push(pick);
  }
  return history;
}

describe('round-robin quantum', () => {
  it('gives q pages to each site in turn, in id order', () => {
    expect(run(roundRobin(2), [1, 2, 3], 8)).toEqual([1, 1, 2, 2, 3, 3, 1, 1]);
  });

  it('skips a closed site and hands its turn to the next one', () => {
    // site 2 runs out after 3 pages: its second turn ends early and later turns skip it
    expect(run(roundRobin(2), [1, 2, 3], 12, { 2: 3 })).toEqual([1, 1, 2, 2, 3, 3, 1, 1, 2, 3, 3, 1]);
  });

  it('returns null when no site is open', () => {
    expect(roundRobin(3)({ arms: [arm(1, false), arm(2, false)], history: [1, 2], budget: null, random: Math.random })).toBeNull();
  });

  it('continues the current turn from the history alone (resume)', () => {
    const policy = roundRobin(3);
    const full = run(policy, [1, 2], 10);
    // a "resumed" policy instance that only sees the first 4 pulls picks what the uninterrupted run picked
    const resumed = roundRobin(3)({ arms: [arm(1), arm(2)], history: full.slice(0, 4), budget: null, random: Math.random });
    expect(resumed).toBe(full[4]);
    expect(full).toEqual([1, 1, 1, 2, 2, 2, 1, 1, 1, 2]);
  });

  it('with one open site keeps pulling it', () => {
    expect(run(roundRobin(2), [5], 5)).toEqual([5, 5, 5, 5, 5]);
  });
});
