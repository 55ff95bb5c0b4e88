import { describe, expect, it } from 'vitest';
import { auto } from '../../src/schedule/sites/auto.js';
import { gittins } from '../../src/schedule/sites/gittins.js';
import { klUcb, klUpper, poissonKL } from '../../src/schedule/sites/kl-ucb.js';
import type { Arm, Policy } from '../../src/schedule/sites/policy.js';
import { randomFor } from '../../src/schedule/sites/random.js';
import { DEFAULTS, describeDefaults, describePolicy, makePolicy, policyNames } from '../../src/schedule/sites/registry.js';
import { roundRobin } from '../../src/schedule/sites/round-robin.js';
import { simulate } from '../../src/schedule/sites/simulate.js';
import { slidingWindowUcb } from '../../src/schedule/sites/sw-ucb.js';
import { EXPLORE_EVERY, roundRobinUcb } from '../../src/schedule/sites/rr-ucb.js';
import { gammaSample, thompson } from '../../src/schedule/sites/thompson.js';
import { trivial, UNBOUNDED_EXPLORE } from '../../src/schedule/sites/trivial.js';
import { ucb1Tuned } from '../../src/schedule/sites/ucb1-tuned.js';
import { ucb1 } from '../../src/schedule/sites/ucb1.js';

// Every case below replays hand-made per-site reward sequences (site i = arm id i) and checks
// the exact pick sequence against the hand computation in the comments.
const picks = (policy: Policy, seqs: number[][], N: number, groups?: (string | null)[]) => simulate(policy, seqs, N, { seed: 1, groups }).picks;
const rep = (x: number, n: number) => new Array<number>(n).fill(x);

function arm(id: number, rewards: number[], extra: Partial<Arm> = {}): Arm {
  return { id, pulls: rewards.length, rewardSum: rewards.reduce((a, b) => a + b, 0), rewardMax: Math.max(0, ...rewards), rewards, open: true, group: null, ...extra };
}

describe('defaults', () => {
  it('are the documented n, m, q and the rest', () => {
    expect(DEFAULTS).toEqual({ quantum: 10, step: 10, warmup: 1, window: 50, priorMean: 1, priorWeight: 20 });
  });

  it('gittins warms up 10 pages per site, ucb1 one, round-robin turns of 10, trivial round(N/K)', () => {
    const seqs = [rep(1, 40), rep(0, 40), rep(0, 40)];
    expect(picks(makePolicy('gittins'), seqs, 30)).toEqual([...rep(0, 10), ...rep(1, 10), ...rep(2, 10)]);
    expect(picks(makePolicy('ucb1'), seqs, 3)).toEqual([0, 1, 2]);
    expect(picks(makePolicy('round-robin'), seqs, 21)).toEqual([...rep(0, 10), ...rep(1, 10), 2]);
    // N = 20, K = 3: round(6.67) = 7 pages each, then 20 - 21 < 0 left: phase 1 is cut by the budget
    expect(picks(makePolicy('trivial'), seqs, 20)).toEqual([...rep(0, 7), ...rep(1, 7), ...rep(2, 6)]);
  });
});

describe('trivial (R1)', () => {
  it('explores E pages per site in turn, then commits to the best first-phase sum; a closed winner hands over', () => {
    // E = 2: 0,0 1,1 2,2 -> phase-1 sums 1, 2, 0 -> site 1 takes page 3 (7) and is used up;
    // the next best first-phase sum is site 0 (1 > 0), although site 2 would now pay 9s
    expect(picks(trivial(2), [[1, 0, 0, 0, 0], [0, 2, 7], [0, 0, 9, 9, 9]], 8)).toEqual([0, 0, 1, 1, 2, 2, 1, 0]);
  });

  it('E = round(N/K) over all K sites; a Not Available site leaves its share to phase 2', () => {
    // N = 8, K = 3 -> E = round(2.67) = 3; site 0 has no page: 1,1,1 2,2,2, sums 1 vs 2 -> site 2 gets 2 more
    expect(picks(trivial(), [[], [0, 1, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0]], 8)).toEqual([1, 1, 1, 2, 2, 2, 2, 2]);
  });

  it('rounds halves up and breaks ties by lowest id', () => {
    // N = 5, K = 2 -> E = round(2.5) = 3: site 0 three times, then site 1 (still phase 1)
    expect(picks(trivial(), [rep(0, 5), rep(1, 5)], 5)).toEqual([0, 0, 0, 1, 1]);
    // E = 2: sums 1 and 1 -> lowest id, site 0
    expect(picks(trivial(2), [[0, 1, 0, 0], [1, 0, 0, 0]], 6)).toEqual([0, 0, 1, 1, 0, 0]);
  });

  it(`without a budget explores ${UNBOUNDED_EXPLORE} pages per site, then the best first-phase sum`, () => {
    const p = trivial();
    const input = (arms: Arm[]) => ({ arms, history: [], budget: null, random: Math.random });
    expect(p(input([arm(0, rep(0, 200)), arm(1, rep(1, 150))]))).toBe(1); // site 1 still owes 50 phase-1 pages
    // both explored: site 1's first 200 pages hold 200 links, site 0's 0 (its later 1s do not count)
    expect(p(input([arm(0, [...rep(0, 200), ...rep(1, 300)]), arm(1, rep(1, 200))]))).toBe(1);
  });
});

describe('gittins (R2)', () => {
  it('n pages on every site, then n at a time on the largest s/t; a site with empty first pages is never revisited', () => {
    // n = 2. Warm-up 0,0 1,1 2,2: means 1, 0, 0.5. Site 0: +0,+0 -> 2/4 = 0.5, tie with site 2
    // -> lowest id, site 0 again: 2/6. Site 2 (0.5): +1,+1 -> 3/4, again -> 5/6. Site 1 (0) never
    // comes back though its pages 3.. are worth 3 each (the article's failure of R2).
    expect(picks(gittins(2), [[1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 3, 3, 3, 3], [1, 0, 1, 1, 1, 1, 1, 1]], 14)).toEqual([0, 0, 1, 1, 2, 2, 0, 0, 0, 0, 2, 2, 2, 2]);
  });

  it('a site used up mid-batch ends its batch', () => {
    // n = 2. Warm-up: means 0, 1, 0.5. Site 1 gets 1 page and is used up: decide again at once:
    // site 2 (0.5 > 0) +0,+0 -> 1/4 = 0.25 > 0 -> site 2 again.
    expect(picks(gittins(2), [[0, 0, 4, 0], [1, 1, 1], [0, 1, 0, 0, 0, 0]], 11)).toEqual([0, 0, 1, 1, 2, 2, 1, 2, 2, 2, 2]);
  });

  it('continues an unfinished batch whatever the history interleaving (concurrency)', () => {
    // site 1 has 3 pulls (one batch of 2 done, one started), site 0 an aligned 2: finish site 1's batch
    const arms = [arm(0, [5, 5]), arm(1, [0, 0, 0])];
    expect(gittins(2)({ arms, history: [0, 1, 1, 0, 1], budget: null, random: Math.random })).toBe(1);
  });
});

describe('ucb1 (R3)', () => {
  it('m = 1, then xbar/Xmax + sqrt(2 ln n / t)', () => {
    // site 0 = 2,0,0,...  site 1 = 1,1,1,...  warm-up 0, 1; Xmax = 2 from then on
    // n=2: s0 1 + sqrt(2ln2/1)=1+1.177=2.177 | s1 0.5+1.177=1.677 -> 0 (reward 0)
    // n=3: s0 0.5+sqrt(2ln3/2)=0.5+1.048=1.548 | s1 0.5+sqrt(2ln3)=0.5+1.482=1.982 -> 1
    // n=4: s0 0.5+sqrt(2ln4/2)=1.677 | s1 0.5+1.177=1.677 exact tie -> lowest id 0 (reward 0)
    // n=5: s0 1/3+sqrt(2ln5/3)=0.333+1.036=1.369 | s1 0.5+sqrt(2ln5/2)=0.5+1.269=1.769 -> 1
    // n=6: s0 0.333+sqrt(2ln6/3)=1.426 | s1 0.5+1.093=1.593 -> 1
    // n=7: s0 0.333+sqrt(2ln7/3)=1.472 | s1 0.5+sqrt(2ln7/4)=0.5+0.986=1.486 -> 1
    // n=8: s0 0.333+sqrt(2ln8/3)=1.511 | s1 0.5+sqrt(2ln8/5)=0.5+0.912=1.412 -> 0
    expect(picks(ucb1(1), [[2, ...rep(0, 9)], rep(1, 10)], 9)).toEqual([0, 1, 0, 1, 0, 1, 1, 1, 0]);
  });

  it('with Xmax = 0 only the bonus counts: the fewest pulls first, lowest id on ties', () => {
    expect(picks(ucb1(1), [rep(0, 3), rep(0, 3), rep(0, 3)], 7)).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it('m = 2 warms every site up with 2 pages in turn', () => {
    expect(picks(ucb1(2), [rep(1, 5), rep(0, 5), rep(0, 5)], 6)).toEqual([0, 0, 1, 1, 2, 2]);
  });
});

describe('round-robin', () => {
  it('q pages per site in turn (the existing policy, registered)', () => {
    expect(picks(roundRobin(2), [rep(0, 9), rep(0, 3), rep(0, 9)], 11)).toEqual([0, 0, 1, 1, 2, 2, 0, 0, 1, 2, 2]);
  });
});

describe('auto (product rule)', () => {
  it('splits the budget by group, each group runs its own rule on its own sites', () => {
    // site 0 university (ucb1, m=1), sites 1, 2 institute (gittins, n=2). Next group = fewest pulls
    // per site (ties: the group holding the lowest id).
    // 1: U 0/1 = I 0/2 -> U: 0 | 2: I -> warm-up 1 | 3: U 1 > I 0.5 -> 1 | 4: U 1 = I 1 -> U: 0
    // 5: I -> warm-up 2 | 6: I 1.5 < 2 -> 2 | 7: U 2 = I 2 -> U: 0 | 8: I 2 < 3 -> means 0 vs 1.5 -> 2
    // 9: I 2.5 < 3 -> site 2's batch is unfinished -> 2 | 10: U 3 = I 3 -> 0
    const seqs = [rep(1, 6), rep(0, 6), [3, 0, 0, 0, 0, 0]];
    const p = auto({ step: 2, warmup: 1, quantum: 10 });
    expect(picks(p, seqs, 10, ['university', 'institute', 'Institute '])).toEqual([0, 1, 1, 0, 2, 2, 0, 2, 2, 0]);
  });

  it('with one group it is exactly that group\'s rule (unknown group = round-robin)', () => {
    const seqs = [[0, 0, 5, 1, 0, 2, 0, 0, 0, 3, 1, 1, 0, 0], [1, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0], [2, 2, 0, 0, 1, 0, 0, 0, 1, 0, 0]];
    const p = auto({ step: 3, warmup: 2, quantum: 4 });
    const all = (g: string | null) => seqs.map(() => g);
    expect(picks(p, seqs, 30, all('university'))).toEqual(picks(ucb1(2), seqs, 30));
    expect(picks(p, seqs, 30, all('institute'))).toEqual(picks(gittins(3), seqs, 30));
    expect(picks(p, seqs, 30, all(null))).toEqual(picks(roundRobin(4), seqs, 30));
    expect(picks(p, seqs, 30, all('museum'))).toEqual(picks(roundRobin(4), seqs, 30));
  });
});

describe('kl-ucb (Poisson)', () => {
  it('inverts the Poisson KL by bisection', () => {
    expect(klUpper(0, 0.7)).toBeCloseTo(0.7, 9); // KL(0, q) = q
    for (const [p, d] of [[1, Math.log(2)], [0.3, 0.05], [12, 3]] as const) {
      const q = klUpper(p, d);
      expect(q).toBeGreaterThan(p);
      expect(poissonKL(p, q)).toBeCloseTo(d, 9);
    }
  });

  it('m = 1, then the largest q with t·KL(xbar, q) <= ln n', () => {
    // site 0 = 1,1,1,...  site 1 = 0,0,0,...; site 1's bound is ln n / 1 (KL(0,q) = q), site 0's
    // solves q - 1 - ln q = ln n / t0:  n=2,t0=1: 2.68 > 0.69 | n=3,t0=2: 2.44 > 1.10 | ...
    // n=7,t0=6: q - 1 - ln q = 0.324 -> q = 2.035 > ln 7 = 1.946 -> 0
    // n=8,t0=7: q - 1 - ln q = 0.297 -> q = 1.980 < ln 8 = 2.079 -> 1
    expect(picks(klUcb(1), [rep(1, 12), rep(0, 12)], 9)).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 1]);
  });
});

describe('ucb1-tuned', () => {
  it('m = 1, then x + sqrt(ln n / t · min(1/4, V)), rewards scaled by Xmax', () => {
    // site 0 = 2,0,2,0,...  site 1 = 1,1,...  V >= 1/4 throughout, so the bonus is sqrt(ln n/(4t))
    // n=2: s0 1+0.416 | s1 0.5+0.416 -> 0 | n=3: s0 0.5+sqrt(ln3/8)=0.871 | s1 0.5+sqrt(ln3/4)=1.024 -> 1
    // n=4: s0 0.5+0.416 = s1 0.5+0.416, tie -> 0 | n=5: s0 0.667+sqrt(ln5/12)=1.033 | s1 0.5+0.449 -> 0
    // n=6: s0 0.5+sqrt(ln6/16)=0.835 | s1 0.5+sqrt(ln6/8)=0.973 -> 1 | n=7: s0 0.849 | s1 0.5+sqrt(ln7/12)=0.903 -> 1
    expect(picks(ucb1Tuned(1), [[2, 0, 2, 0, 2, 0, 2, 0], rep(1, 8)], 8)).toEqual([0, 1, 0, 1, 0, 0, 1, 1]);
  });

  it('prefers the uncertain site when the means are equal (plain UCB1 would tie to the lowest id)', () => {
    // 400 pages each, mean 1; site 0 constant, site 1 alternates 0/2 (var 1). Xmax 2, n = 800,
    // ln n / t = 0.01671: s0 V = 0 + sqrt(2·0.01671) = 0.183 -> 0.5 + sqrt(0.01671·0.183) = 0.555;
    // s1 V = 0.25 + 0.183 -> min 1/4 -> 0.5 + sqrt(0.01671/4) = 0.565 -> site 1
    const arms = [arm(0, rep(1, 400)), arm(1, Array.from({ length: 400 }, (_, i) => 2 * (i % 2)))];
    const input = { arms, history: [...rep(0, 400), ...rep(1, 400)], budget: null, random: Math.random };
    expect(ucb1Tuned(1)(input)).toBe(1);
    expect(ucb1(1)(input)).toBe(0);
  });
});

describe('sw-ucb (window over each site\'s own pages)', () => {
  it('drops a site whose recent pages dried up sooner than UCB1 does', () => {
    // w = 2, m = 1. site 0 = 3,3,0,0,...  site 1 = 1,1,...; Xmax = 3
    // n=2: s0 3/3+sqrt(2ln2)=2.177 | s1 1/3+1.177=1.510 -> 0 | n=3: s0 1+sqrt(ln3)=2.048 | s1 0.333+1.482 -> 0
    // n=4: s0 mean(3,0)=1.5 -> 0.5+sqrt(2ln4/2)=1.677 | s1 0.333+sqrt(2ln4)=1.998 -> 1
    // n=5: s0 0.5+sqrt(ln5)=1.769 | s1 0.333+sqrt(ln5)=1.602 -> 0 (reward 0: window 0,0)
    // n=6: s0 0+sqrt(ln6)=1.339 | s1 0.333+1.339 -> 1; from here both counts are capped at w = 2,
    // so the bonuses are equal and site 1's higher recent mean wins every time
    const seqs = [[3, 3, ...rep(0, 8)], rep(1, 10)];
    expect(picks(slidingWindowUcb(2, 1), seqs, 10)).toEqual([0, 1, 0, 0, 1, 0, 1, 1, 1, 1]);
    // UCB1 (whole-history mean 6/5 of site 0) goes back to site 0 at the 8th pull
    expect(picks(ucb1(1), seqs, 10)).toEqual([0, 1, 0, 0, 1, 0, 1, 0, 1, 1]);
  });
});

describe('rr-ucb (round-robin exploration + UCB scaled by the best site)', () => {
  it('sends every 5th pull to the least-crawled site, and so finds a hub that sw-ucb never revisits', () => {
    // site 0 pays 5 a page; site 1 pays nothing for 3 pages, then 100 a page (a hub deep in it)
    const seqs = [rep(5, 20), [0, 0, 0, ...rep(100, 7)]];
    // warm-up 0, 1; n = 2: 5/5 + 0.3 sqrt(2 ln 2) = 1.35 vs 0 + 0.35: site 0 (and so on);
    // n = 5, 10, 15 explore: site 1 (fewest pulls), its 4th page (n = 15) pays 100;
    // n = 16: site 1's last 2 mean 50 is the best: 50/50 + 0.3 sqrt(ln 16) = 1.5 vs 5/50 + 0.5 = 0.6
    expect(picks(roundRobinUcb(2, 1), seqs, 18)).toEqual([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1]);
    expect(picks(slidingWindowUcb(2, 1), seqs, 18)).toEqual([0, 1, ...rep(0, 16)]);
    expect(EXPLORE_EVERY).toBe(5);
  });

  it('scales means by the best site\'s recent mean, not by the largest single page', () => {
    // One page of 1000 links on site 2 (long ago) shrinks every scaled mean to ~0 under sw-ucb's
    // Xmax, so its bonus decides: site 1 (10 pulls) 0.001 + sqrt(2 ln 131 / 10) = 0.99 beats site 0
    // 0.01 + sqrt(2 ln 131 / 50) = 0.45. rr-ucb scales by the best recent mean (10): site 0
    // 1 + 0.3 x 0.44 = 1.13 beats site 1 0.1 + 0.3 x 0.99 = 0.40.
    const arms = [arm(0, rep(10, 60)), arm(1, rep(1, 10)), arm(2, [1000, ...rep(0, 59)])];
    const input = { arms, history: rep(0, 131), budget: 1000, random: randomFor(1, 131) };
    expect(slidingWindowUcb(50, 1)(input)).toBe(1);
    expect(roundRobinUcb(50, 1)(input)).toBe(0);
  });
});

describe('thompson (Gamma-Poisson)', () => {
  it('draws one posterior sample per open site in id order from input.random and pulls the largest', () => {
    const seqs = [[0, 1, 0, 2, 0, 0, 1], [3, 0, 0, 1, 0, 0, 0, 0], [], [0, 0, 0, 0, 5]];
    const { picks: got } = simulate(thompson({ priorMean: 1, priorWeight: 2 }), seqs, 19, { seed: 7 });
    // recompute every pick by hand: posterior Gamma(1·2 + s, rate 2 + t) per open site
    const rewards: number[][] = seqs.map(() => []);
    for (const [k, pick] of got.entries()) {
      const random = randomFor(7, k);
      let best = -1;
      let bestDraw = -Infinity;
      seqs.forEach((seq, i) => {
        if (rewards[i]!.length >= seq.length) return;
        const s = rewards[i]!.reduce((a, b) => a + b, 0);
        const draw = gammaSample(2 + s, random) / (2 + rewards[i]!.length);
        if (draw > bestDraw) [best, bestDraw] = [i, draw];
      });
      expect(pick).toBe(best);
      rewards[pick]!.push(seqs[pick]![rewards[pick]!.length]!);
    }
    expect(got).toHaveLength(19);
  });

  it('follows overwhelming evidence (30 pages of 5 links vs 30 empty pages) for every seed', () => {
    const arms = [arm(0, rep(0, 30)), arm(1, rep(5, 30))];
    for (let seed = 0; seed < 50; seed++) {
      expect(makePolicy('thompson')({ arms, history: [...rep(0, 30), ...rep(1, 30)], budget: null, random: randomFor(seed, 60) })).toBe(1);
    }
  });

  it('samples Gamma with the right mean and variance', () => {
    const random = randomFor(3, 0);
    for (const shape of [0.3, 1, 4.5]) {
      const xs = Array.from({ length: 40000 }, () => gammaSample(shape, random));
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length;
      expect(Math.abs(m - shape) / shape).toBeLessThan(0.03);
      expect(Math.abs(v - shape) / shape).toBeLessThan(0.08);
    }
  });
});

describe('registry', () => {
  it('knows every policy, describes each with its defaults, and rejects bad names and parameters', () => {
    expect([...policyNames]).toEqual(['trivial', 'gittins', 'ucb1', 'round-robin', 'auto', 'kl-ucb', 'thompson', 'ucb1-tuned', 'sw-ucb', 'rr-ucb', 'pages']);
    expect(describePolicy('gittins')).toContain('step=10');
    expect(describePolicy('trivial')).toContain('explore=round(N/K)');
    expect(describeDefaults()).toHaveLength(Object.keys(DEFAULTS).length);
    expect(() => makePolicy('greedy')).toThrow(/unknown policy/);
    expect(() => makePolicy('gittins', { step: 0 })).toThrow(RangeError);
    expect(() => makePolicy('round-robin', { quantum: 2.5 })).toThrow(RangeError);
    expect(() => makePolicy('thompson', { priorWeight: -1 })).toThrow(RangeError);
    expect(() => makePolicy('trivial', { explore: 0 })).not.toThrow(); // E = 0: commit at once
  });
});
