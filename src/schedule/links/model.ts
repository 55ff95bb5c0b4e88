import { believedYield, crawlMean, optimisticYield, RECENT } from './site-belief.js';

/**
 * What a best-first crawl has learned of each site's links: for every cue (cues.ts), how many
 * fetched pages had it and the new external URLs those pages gave. A link's predicted yield is
 * the best smoothed mean of its cues: a cue seen on few pages is pulled towards the site's own
 * mean (a word first seen on one lucky page is not trusted yet), and a cue never seen in the site
 * starts from what it gave on the other sites of the crawl (a "changelog" that paid on one
 * documentation site is worth trying first on the next). Plain data in, numbers out.
 */
export interface CueStats {
  n: number;
  sum: number;
}

/** How many pages of evidence weigh as much as the prior. */
const K = 3;

/**
 * What cues paid on other sites, learned before the crawl (offline, from page graphs: harvest's
 * cue-prior.ts): per cue, pages and new external URLs, and the mean per page over all of them.
 * A cue's lift (its smoothed mean over the overall mean) scales a site's own mean: "changelog"
 * predicts many times a site's mean before the site has shown any changelog.
 */
export interface CuePrior {
  mean: number;
  cues: ReadonlyMap<string, CueStats>;
}

export class CueModel {
  private sites = new Map<number, Map<string, CueStats>>();
  private all = new Map<string, CueStats>();
  private siteTotals = new Map<number, CueStats>();
  /**
   * What each site's belief is learned from (site-belief.ts): its pages after the first. The start
   * page holds the site's template links, new once, and says little of the pages behind it: a
   * start page without external links does not condemn a site, nor does a rich one crown it.
   */
  private evidence = new Map<number, CueStats>();
  /** the same, over the site's last RECENT pages only (what it gives now), with those pages' rewards */
  private recent = new Map<number, CueStats & { last: number[] }>();
  /** the sum of the sites' recent means (the crawl's mean) */
  private sumOfMeans = 0;
  /** the largest recent sum any site has had: what bounds every site's index (indexCeiling) */
  private recentSumMax = 0;

  constructor(private prior: CuePrior | null = null) {}

  /** cue → its lift, computed once (the prior does not change) */
  private lifts = new Map<string, number>();

  /** The offline prior's lift of a cue (1: no prior, or a cue it has not seen). */
  private lift(c: string): number {
    const P = this.prior;
    if (!P || P.mean <= 0) return 1;
    let l = this.lifts.get(c);
    if (l === undefined) {
      const s = P.cues.get(c);
      this.lifts.set(c, (l = s ? (s.sum + K * P.mean) / (s.n + K) / P.mean : 1));
    }
    return l;
  }

  /** A fetched page of `siteId` with these cues gave `reward`. */
  learn(siteId: number, cues: readonly string[], reward: number): void {
    const total = this.siteTotals.get(siteId) ?? { n: 0, sum: 0 };
    total.n++;
    total.sum += reward;
    this.siteTotals.set(siteId, total);
    if (total.n > 1) {
      const e = this.evidence.get(siteId) ?? { n: 0, sum: 0 };
      e.n++;
      e.sum += reward;
      this.evidence.set(siteId, e);
      const r = this.recent.get(siteId) ?? { n: 0, sum: 0, last: [] };
      if (r.n > 0) this.sumOfMeans -= r.sum / r.n;
      r.last.push(reward);
      r.sum += reward;
      if (r.last.length > RECENT) r.sum -= r.last.shift()!;
      r.n = r.last.length;
      this.sumOfMeans += r.sum / r.n;
      this.recentSumMax = Math.max(this.recentSumMax, r.sum);
      this.recent.set(siteId, r);
    }
    let site = this.sites.get(siteId);
    if (!site) this.sites.set(siteId, (site = new Map()));
    for (const c of cues) {
      for (const m of [site, this.all]) {
        const s = m.get(c) ?? { n: 0, sum: 0 };
        s.n++;
        s.sum += reward;
        m.set(c, s);
      }
    }
  }

  /** New external URLs per fetched page of the site so far. */
  siteMean(siteId: number): number {
    const t = this.siteTotals.get(siteId);
    return t && t.n > 0 ? t.sum / t.n : 0;
  }

  /** The crawl's mean yield per page, the prior of every site's belief (site-belief.ts). */
  crawlMean(): number {
    return crawlMean(this.sumOfMeans, this.recent.size, this.prior?.mean ?? 1);
  }

  /** The site's believed yield per page: its own mean shrunk towards the crawl's. */
  siteBelief(siteId: number): number {
    return believedYield(this.evidence.get(siteId) ?? { n: 0, sum: 0 }, this.crawlMean());
  }

  /** The site's optimistic yield per page now: its last pages' yield shrunk towards the crawl's, plus its doubt. */
  siteIndex(siteId: number): number {
    return optimisticYield(this.recent.get(siteId) ?? { n: 0, sum: 0 }, this.crawlMean());
  }

  /**
   * At least siteIndex(s) of every site s now: the index of a site with the largest recent sum and
   * no pages. optimisticYield grows with the sum and falls with the pages, and floating-point
   * sums, roots and quotients are monotone in their operands, so the bound holds as computed.
   */
  indexCeiling(): number {
    return optimisticYield({ n: 0, sum: this.recentSumMax }, this.crawlMean());
  }

  /** Fetched pages of the site learned from. */
  sitePages(siteId: number): number {
    return this.siteTotals.get(siteId)?.n ?? 0;
  }

  /** Fetched pages of the site that had this cue (0: a cue the site has not tried). */
  siteCount(siteId: number, cue: string): number {
    return this.sites.get(siteId)?.get(cue)?.n ?? 0;
  }

  /** Predicted new external URLs of a page reached by a link with these cues, the site's own yield being `siteMean`. */
  predict(siteId: number, cues: readonly string[], siteMean = this.siteMean(siteId)): number {
    const site = this.sites.get(siteId);
    let best = siteMean;
    for (const c of cues) {
      const g = this.all.get(c);
      const base = siteMean * this.lift(c);
      const prior = g ? (g.sum + K * base) / (g.n + K) : base;
      const s = site?.get(c);
      const p = s ? (s.sum + K * prior) / (s.n + K) : prior;
      if (p > best) best = p;
    }
    return best;
  }
}
