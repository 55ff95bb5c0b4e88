/** mulberry32: a small, fast, seedable PRNG; [0, 1) floats. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The random stream for the pick at position `pick` of a crawl with `seed`: a function of the
 * two numbers only, so a resumed crawl draws exactly what an uninterrupted one would have.
 */
export function randomFor(seed: number, pick: number): () => number {
  return mulberry32(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(pick + 1, 0xc2b2ae35));
}
