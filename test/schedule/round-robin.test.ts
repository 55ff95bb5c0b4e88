import { describe, expect, it } from 'vitest';
import type { Arm, Policy } from '../../src/schedule/sites/policy.js';
import { roundRobin } from '../../src/schedule/sites/round-robin.js';

const arm = (id: number, open = true, pulls = 0): Arm => ({ id, pulls, rewardSum: 0, rewardMax: 0, rewards: [], open, group: null });
const pullsOf = (history: number[], id: number) => history.filter((h) => h === id).length;

/** Run a policy sequentially for n pulls; `closeAfter` closes a site after that many pulls. */
function run(policy: Policy, ids: number[], n: number, closeAfter: Record<number, number> = {}): number[] {
  const history: number[] = [];
  for (let i = 0; i < n; i++) {
    const arms = ids.map((id) => arm(id, closeAfter[id] === undefined || pullsOf(history, id) < closeAfter[id]!, pullsOf(history, id)));
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
    const h = full.slice(0, 4);
    const resumed = roundRobin(3)({ arms: [arm(1, true, pullsOf(h, 1)), arm(2, true, pullsOf(h, 2))], history: h, budget: null, random: Math.random });
    expect(resumed).toBe(full[4]);
    expect(full).toEqual([1, 1, 1, 2, 2, 2, 1, 1, 1, 2]);
  });

  it('keeps turns whole when a site is busy for a pick (several workers)', () => {
    // site 1 is mid-turn (1 of 3 pulled) but its page is in flight: another site is picked,
    // and site 1's turn continues once it is open again
    const busy = roundRobin(3)({ arms: [arm(1, false, 1), arm(2, true, 0)], history: [1], budget: null, random: Math.random });
    expect(busy).toBe(2);
    const back = roundRobin(3)({ arms: [arm(1, true, 1), arm(2, false, 1)], history: [1, 2], budget: null, random: Math.random });
    expect(back).toBe(1);
  });

  it('with one open site keeps pulling it', () => {
    expect(run(roundRobin(2), [5], 5)).toEqual([5, 5, 5, 5, 5]);
  });
});
