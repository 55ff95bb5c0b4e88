/**
 * Ids to look at again from a time on (epoch ms), soonest first: a binary heap, so that a pick
 * among thousands of sites asks only those whose pause or retry has come, not every waiting one.
 * An id may be in it more than once; looking at it again twice is harmless.
 */
export class Wakes {
  private heap: [at: number, id: number][] = [];

  add(at: number, id: number): void {
    const h = this.heap;
    h.push([at, id]);
    for (let i = h.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (h[up]![0] <= h[i]![0]) break;
      [h[up], h[i]] = [h[i]!, h[up]!];
      i = up;
    }
  }

  /** The ids due at `now`, taken out. */
  due(now: number): number[] {
    const out: number[] = [];
    const h = this.heap;
    while (h.length > 0 && h[0]![0] <= now) {
      out.push(h[0]![1]);
      const last = h.pop()!;
      if (h.length === 0) break;
      h[0] = last;
      for (let i = 0; ; ) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let min = i;
        if (l < h.length && h[l]![0] < h[min]![0]) min = l;
        if (r < h.length && h[r]![0] < h[min]![0]) min = r;
        if (min === i) break;
        [h[min], h[i]] = [h[i]!, h[min]!];
        i = min;
      }
    }
    return out;
  }

  clear(): void {
    this.heap = [];
  }
}
