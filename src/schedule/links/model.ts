import { believedYield, crawlMean, HUB, optimisticYield, RECENT, tailYield, type CrawlTail, type TailEvidence } from './site-belief.js';

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
  /** the same, over the site's last RECENT pages only (what it gives now), with those pages' rewards, split into hubs and the others */
  private recent = new Map<number, CueStats & TailEvidence & { last: number[] }>();
  /** the sum of the sites' recent means (the crawl's mean) */
  private sumOfMeans = 0;
  /** the sum of the sites' recent means over their pages that are not hubs */
  private sumOfSmallMeans = 0;
  /** every page learned from (after its site's start), the hubs among them and the sum of their logs */
  private pagesAfterStart = 0;
  private hubs = 0;
  private sumOfLogHubs = 0;
  /** pages after the start of the sites that have shown a new external URL since, and those of them without one */
  private livePages = 0;
  private liveQuiet = 0;
  /** the crawl's tail, brought up to date when a page is learned (site-belief.ts tailYield) */
  private tail: CrawlTail = { smallMean: 0, hubRate: 0, hubSize: HUB, quiet: 0.5 };
  /** the largest sum of a site's recent pages that are not hubs: with the crawl's tail, what bounds every site's index (indexCeiling) */
  private recentSmallMax = 0;

  constructor(private prior: CuePrior | null = null) {
    this.tail.smallMean = this.prior?.mean ?? 1;
  }

  /** Pages learned from, in all: every prediction stays as it is until this moves. */
  learned = 0;

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
    this.learned++;
    const total = this.siteTotals.get(siteId) ?? { n: 0, sum: 0 };
    total.n++;
    total.sum += reward;
    this.siteTotals.set(siteId, total);
    if (total.n > 1) {
      const e = this.evidence.get(siteId) ?? { n: 0, sum: 0 };
      e.n++;
      e.sum += reward;
      this.evidence.set(siteId, e);
      const r = this.recent.get(siteId) ?? { n: 0, sum: 0, last: [], hubs: 0, small: 0, seen: false };
      if (r.n > 0) this.sumOfMeans -= r.sum / r.n;
      if (r.n > r.hubs) this.sumOfSmallMeans -= r.small / (r.n - r.hubs);
      r.last.push(reward);
      r.sum += reward;
      this.tallyPage(r, reward, 1);
      if (reward >= HUB) {
        this.hubs++;
        this.sumOfLogHubs += Math.log(reward);
      }
      if (r.seen) {
        this.livePages++;
        if (reward === 0) this.liveQuiet++;
      } else if (reward > 0) {
        // its quiet pages until now were a live site's
        r.seen = true;
        this.livePages += e.n;
        this.liveQuiet += e.n - 1;
      }
      this.pagesAfterStart++;
      if (r.last.length > RECENT) {
        const old = r.last.shift()!;
        r.sum -= old;
        this.tallyPage(r, old, -1);
      }
      r.n = r.last.length;
      this.sumOfMeans += r.sum / r.n;
      if (r.n > r.hubs) this.sumOfSmallMeans += r.small / (r.n - r.hubs);
      this.recentSmallMax = Math.max(this.recentSmallMax, r.small);
      this.recent.set(siteId, r);
      this.tail = {
        smallMean: crawlMean(this.sumOfSmallMeans, this.recent.size, this.prior?.mean ?? 1),
        hubRate: this.hubs / (this.pagesAfterStart + 1),
        hubSize: this.hubs ? Math.exp(this.sumOfLogHubs / this.hubs) : HUB,
        quiet: (this.liveQuiet + 1) / (this.livePages + 2),
      };
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

  /** A page of the site's window counted in (+1) or out (-1): a hub, or the others' yield. */
  private tallyPage(r: TailEvidence, reward: number, sign: 1 | -1): void {
    if (reward >= HUB) r.hubs += sign;
    else r.small += sign * reward;
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

  /** What the crawl has seen of pages that are not hubs, of hubs, and how big they are. */
  crawlTail(): CrawlTail {
    return this.tail;
  }

  /** The site's optimistic yield per page now: its last pages, a hub's chance and the other pages' yield apart, plus their doubt. */
  siteIndex(siteId: number): number {
    return tailYield(this.recent.get(siteId) ?? { n: 0, hubs: 0, small: 0, seen: false }, this.tail);
  }

  /**
   * At least siteIndex(s) of every site s now. A site's index (tailYield) is at most its chance of
   * being live (<= 1) times a mix of its small yield and the crawl's typical hub, so at most the
   * larger of the two; its small yield (optimisticYield) grows with the sum of its recent pages
   * that are not hubs and falls with their number, so a site with the largest such sum and no
   * pages bounds it. The factor covers the rounding of the mix.
   */
  indexCeiling(): number {
    const t = this.tail;
    return Math.max(t.hubSize, optimisticYield({ n: 0, sum: this.recentSmallMax }, t.smallMean)) * (1 + 1e-9);
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
    let best = siteMean;
    for (const c of cues) {
      const p = this.cuePredict(siteId, c, siteMean);
      if (p > best) best = p;
    }
    return best;
  }

  /** What cue `c` alone predicts (predict takes the best of a link's cues and the site's yield). */
  cuePredict(siteId: number, c: string, siteMean: number): number {
    const g = this.all.get(c);
    const base = siteMean * this.lift(c);
    const prior = g ? (g.sum + K * base) / (g.n + K) : base;
    const s = this.sites.get(siteId)?.get(c);
    return s ? (s.sum + K * prior) / (s.n + K) : prior;
  }
}
