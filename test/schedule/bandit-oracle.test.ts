import { describe, expect, it } from 'vitest';
import { oracle, oracleCurve } from '../../src/schedule/sites/oracle.js';
import { mulberry32 } from '../../src/schedule/sites/random.js';

/** Every allocation of exactly min(N, total) pages (a_i <= L_i), best sum of prefix sums. */
function bruteForce(seqs: number[][], N: number): number {
  const M = Math.min(N, seqs.reduce((s, q) => s + q.length, 0));
  const prefix = seqs.map((q) => q.reduce<number[]>((acc, x) => [...acc, acc[acc.length - 1]! + x], [0]));
  const go = (i: number, left: number): number => {
    if (i === seqs.length) return left === 0 ? 0 : -Infinity;
    let best = -Infinity;
    for (let a = 0; a <= Math.min(left, seqs[i]!.length); a++) best = Math.max(best, prefix[i]![a]! + go(i + 1, left - a));
    return best;
  };
  return go(0, M);
}

describe('oracle (exact DP over sites)', () => {
  it('matches brute force on small random cases, with a valid allocation', () => {
    const r = mulberry32(7);
    for (let trial = 0; trial < 400; trial++) {
      const K = 1 + Math.floor(r() * 4);
      const seqs = Array.from({ length: K }, () => Array.from({ length: Math.floor(r() * 6) }, () => (r() < 0.4 ? 0 : Math.floor(r() * 9))));
      const N = Math.floor(r() * 16);
      const { total, allocation } = oracle(seqs, N);
      expect(total).toBe(bruteForce(seqs, N));
      const spent = Math.min(N, seqs.reduce((s, q) => s + q.length, 0));
      expect(allocation.reduce((a, b) => a + b, 0)).toBe(spent);
      allocation.forEach((a, i) => expect(a).toBeLessThanOrEqual(seqs[i]!.length));
      expect(allocation.reduce((s, a, i) => s + seqs[i]!.slice(0, a).reduce((x, y) => x + y, 0), 0)).toBe(total);
    }
  });

  it('looks past a poor start (a greedy allocation would not)', () => {
    // 3 pages: site 0's first page pays 1, site 1 pays 0, 0, 10 -> all three on site 1
    expect(oracle([[1, 1, 1], [0, 0, 10]], 3)).toEqual({ total: 10, allocation: [0, 3] });
  });

  it('curve[n] is the oracle for every n <= N, and stops at the total number of pages', () => {
    const seqs = [[3, 0, 0, 4], [1, 1, 1], [], [0, 5]];
    const curve = oracleCurve(seqs, 20);
    expect(curve).toHaveLength(10); // 9 pages in all, n = 0..9
    for (let n = 0; n < curve.length; n++) expect(curve[n]).toBe(oracle(seqs, n).total);
    // prefix sums: site 0 0,3,3,3,7 | site 1 0,1,2,3 | site 3 0,0,5. By hand: 1 page: 3 (site 0);
    // 2: 5 (site 3 twice beats 3 + 1); 3: 3 + 5; 4: +1; 5: +1; 6: 7 + 5 (all of site 0 beats 3 + 5 + 3);
    // 7, 8, 9: +1 each from site 1, up to every link, 15
    expect([...curve]).toEqual([0, 3, 5, 8, 9, 10, 12, 13, 14, 15]);
  });

  it('handles no sites and a zero budget', () => {
    expect(oracle([], 5)).toEqual({ total: 0, allocation: [] });
    expect(oracle([[1, 2]], 0)).toEqual({ total: 0, allocation: [0] });
  });
});
