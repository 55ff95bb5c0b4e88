/**
 * A set of 64-bit fingerprints held as two 32-bit lanes in typed arrays: open addressing, linear
 * probing, doubling at half full. About 18 bytes an entry, no object per entry: a million
 * external URLs cost 18 MB, where a JS Set of BigInts costs several times that.
 */
export class FpSet {
  private lo: Int32Array;
  private hi: Int32Array;
  private used: Uint8Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1024) {
    let n = 1024;
    while (n < capacity * 2) n *= 2;
    this.lo = new Int32Array(n);
    this.hi = new Int32Array(n);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
  }

  has(lo: number, hi: number): boolean {
    return this.slot(lo, hi) < 0;
  }

  /** Adds; true when it was not there. */
  add(lo: number, hi: number): boolean {
    const s = this.slot(lo, hi);
    if (s < 0) return false;
    this.lo[s] = lo;
    this.hi[s] = hi;
    this.used[s] = 1;
    if (++this.size * 2 > this.mask + 1) this.grow();
    return true;
  }

  /** -1 when (lo, hi) is in the set, else the free slot where it would go. */
  private slot(lo: number, hi: number): number {
    let i = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) & this.mask;
    while (this.used[i]) {
      if (this.lo[i] === lo && this.hi[i] === hi) return -1;
      i = (i + 1) & this.mask;
    }
    return i;
  }

  private grow(): void {
    const { lo, hi, used } = this;
    const n = (this.mask + 1) * 2;
    this.lo = new Int32Array(n);
    this.hi = new Int32Array(n);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
    for (let i = 0; i < used.length; i++) {
      if (!used[i]) continue;
      const s = this.slot(lo[i]!, hi[i]!);
      this.lo[s] = lo[i]!;
      this.hi[s] = hi[i]!;
      this.used[s] = 1;
    }
  }
}
