/**
 * The topic of a focused crawl as a TF-IDF vector, and page relevance as the cosine similarity of
 * a page's TF-IDF vector (its title and body text) to it — the focused-crawling article's model.
 * Document frequencies are learned from the pages the crawl fetches (a term on every page says
 * nothing). Every RETRAIN newly relevant pages the topic vector is retrained (Rocchio: the given
 * terms plus the centroid of the relevant pages found so far, its TOP terms kept), so the crawl
 * learns the words that go with the topic on these sites. Plain data in, numbers out; the same
 * pages in the same order give the same topic, so a resumed crawl rebuilds it exactly.
 */
export type Counts = Readonly<Record<string, number>>;

export const RETRAIN = 100;
const TOP = 50;
/** Weight of the relevant pages' centroid against the terms the user gave. */
const BETA = 0.5;

export class Topic {
  private df = new Map<string, number>();
  private docs = 0;
  private relevantSum = new Map<string, number>();
  private relevantCount = 0;
  private vector: Map<string, number>;

  /** `seed`: the topic's terms (weighted by count), from the user's words or example pages. */
  constructor(
    private readonly seed: Counts,
    readonly threshold: number,
  ) {
    this.vector = normalize(new Map(Object.entries(seed)));
  }

  private idf(t: string): number {
    return Math.log((this.docs + 1) / ((this.df.get(t) ?? 0) + 1)) + 1;
  }

  private tfidf(c: Counts): Map<string, number> {
    const v = new Map<string, number>();
    for (const t in c) v.set(t, (1 + Math.log(c[t]!)) * this.idf(t));
    return normalize(v);
  }

  /** Cosine similarity of a text's term counts to the topic, in [0, 1]. */
  similarity(c: Counts): number {
    let dot = 0;
    const v = this.tfidf(c);
    for (const [t, w] of v) dot += w * (this.vector.get(t) ?? 0);
    return dot;
  }

  /**
   * A fetched page: its relevance (similarity before the page is counted in the frequencies),
   * then the page joins the frequencies and, when relevant, the centroid.
   */
  observe(c: Counts): number {
    const r = this.similarity(c);
    this.docs++;
    for (const t in c) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    if (r >= this.threshold) {
      for (const [t, w] of this.tfidf(c)) this.relevantSum.set(t, (this.relevantSum.get(t) ?? 0) + w);
      if (++this.relevantCount % RETRAIN === 0) this.retrain();
    }
    return r;
  }

  get relevantPages(): number {
    return this.relevantCount;
  }

  /** The topic's heaviest terms, for `status` and tests. */
  terms(n = 10): string[] {
    return [...this.vector].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([t]) => t);
  }

  private retrain(): void {
    const v = new Map(normalize(new Map(Object.entries(this.seed))));
    for (const [t, s] of this.relevantSum) v.set(t, (v.get(t) ?? 0) + (BETA * s) / this.relevantCount);
    const top = [...v].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, TOP);
    this.vector = normalize(new Map(top));
  }
}

function normalize(v: Map<string, number>): Map<string, number> {
  let n = 0;
  for (const w of v.values()) n += w * w;
  n = Math.sqrt(n);
  if (n > 0) for (const [t, w] of v) v.set(t, w / n);
  return v;
}
