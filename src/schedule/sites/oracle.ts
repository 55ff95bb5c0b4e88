/**
 * The best any scheduler could have done: given each site's fixed reward sequence (its pages in
 * breadth-first order), spend N pages so that the sum of per-site prefix sums is largest.
 * Exact dynamic programme over sites: best[j] = the most links from j pages on the sites seen
 * so far. O(K·N·min(N, L)) time, O(N) memory per site for the allocation.
 *
 * Pages are spent exactly (min(N, total pages)); rewards are >= 0, so spending exactly n pages
 * never does worse than spending at most n, and the curve is the oracle for every n <= N.
 */
interface Dp {
  best: Float64Array; // best[j], j = 0..M: the most links from exactly j pages
  choices: Int32Array[]; // choices[i][j]: pages on site i in the best use of j pages on sites 0..i
}

function run(sequences: readonly (readonly number[])[], N: number, keepChoices: boolean): Dp {
  const total = sequences.reduce((s, q) => s + q.length, 0);
  const M = Math.max(0, Math.min(Math.floor(N), total));
  let best = new Float64Array(M + 1).fill(-Infinity);
  best[0] = 0;
  let reach = 0; // most pages the sites so far can take
  const choices: Int32Array[] = [];
  for (const seq of sequences) {
    const L = Math.min(seq.length, M);
    const prefix = new Float64Array(L + 1);
    for (let a = 0; a < L; a++) prefix[a + 1] = prefix[a]! + seq[a]!;
    const next = new Float64Array(M + 1).fill(-Infinity);
    const choice = new Int32Array(keepChoices ? M + 1 : 0);
    const newReach = Math.min(M, reach + L);
    for (let j = 0; j <= newReach; j++) {
      let v = -Infinity;
      let arg = 0;
      // a pages on this site, j - a on the earlier ones (which can take at most `reach`)
      for (let a = Math.max(0, j - reach), hi = Math.min(j, L); a <= hi; a++) {
        const x = best[j - a]! + prefix[a]!;
        if (x > v) [v, arg] = [x, a];
      }
      next[j] = v;
      if (keepChoices) choice[j] = arg;
    }
    best = next;
    reach = newReach;
    choices.push(choice);
  }
  return { best, choices };
}

/** oracle[n] for n = 0..min(N, total pages): the best total from exactly n pages. */
export function oracleCurve(sequences: readonly (readonly number[])[], N: number): Float64Array {
  return run(sequences, N, false).best;
}

/** The best total from N pages and one allocation (pages per site) that reaches it. */
export function oracle(sequences: readonly (readonly number[])[], N: number): { total: number; allocation: number[] } {
  const { best, choices } = run(sequences, N, true);
  let j = best.length - 1;
  const allocation = new Array<number>(sequences.length).fill(0);
  for (let i = sequences.length - 1; i >= 0; i--) {
    allocation[i] = choices[i]![j]!;
    j -= allocation[i]!;
  }
  return { total: best[best.length - 1]!, allocation };
}
