/** A curve as parallel arrays: x = pages fetched, y = external links stored so far. */
export interface Curve {
  x: number[];
  y: number[];
}

/**
 * The harvest curve (cumulative reward against pulls), built one pull at a time and thinned to
 * about `maxPoints` points as it goes, so a crawl of millions of pages gives a chart of fixed size.
 * `total` (the number of pulls that will be added) sets the step; the first and last points are
 * always kept.
 */
export class HarvestCurve {
  readonly curve: Curve = { x: [0], y: [0] };
  private n = 0;
  private sum = 0;
  private readonly step: number;

  constructor(private readonly total: number, maxPoints = 400) {
    this.step = Math.max(1, Math.ceil(total / maxPoints));
  }

  add(reward: number): void {
    this.n++;
    this.sum += reward;
    if (this.n % this.step === 0 || this.n === this.total) {
      this.curve.x.push(this.n);
      this.curve.y.push(this.sum);
    }
  }
}

/**
 * Which site the policy chose over time: the pulls cut into at most `maxBins` equal runs (in crawl
 * order), and for each run how many pulls went to each site.
 */
export class ChoiceTimeline {
  /** counts[site index][bin] */
  readonly counts: number[][];
  readonly bins: number;
  private i = 0;

  constructor(private readonly siteIndex: ReadonlyMap<number, number>, readonly pulls: number, maxBins = 100) {
    this.bins = Math.max(1, Math.min(pulls, maxBins));
    this.counts = Array.from({ length: siteIndex.size }, () => new Array<number>(this.bins).fill(0));
  }

  add(siteId: number): void {
    const row = this.siteIndex.get(siteId);
    const bin = Math.min(this.bins - 1, Math.floor((this.i * this.bins) / Math.max(1, this.pulls)));
    this.i++;
    if (row !== undefined) this.counts[row]![bin]!++;
  }
}
