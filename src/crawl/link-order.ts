import type { FrontierPage } from '../store/frontier.js';
import type { LinkOrder, OrderedLink, OrderState } from '../store/commit.js';
import { childStates } from '../order/children.js';
import { joinCues, linkCues, splitCues } from '../order/cues.js';
import { CueModel } from '../order/model.js';
import { priorityOf, PROMOTE, type LinkState, type Order } from '../order/priority.js';
import { yieldRelevance } from '../order/relevance.js';
import { neighbourhood } from '../order/shark.js';

/**
 * The crawl's side of an ordered crawl (src/order): one cue model learned from every pulled
 * page, the pulled page's links scored with it. A page queued by a breadth-first run has no
 * stored cues: its URL and anchor give them.
 */
export class CrawlOrder implements LinkOrder {
  readonly model = new CueModel();

  constructor(readonly order: Exclude<Order, 'bfs'>) {}

  private cuesOf(url: string, anchor: string | null | undefined, cues: string | null | undefined): string[] {
    return cues ? splitCues(cues) : linkCues(url, anchor ?? '');
  }

  learn(page: FrontierPage, reward: number): void {
    this.model.learn(page.siteId, this.cuesOf(page.url, page.anchor, page.state?.cues), reward);
  }

  /** Learn a pull of an earlier run (a resumed crawl rebuilds the model from the pull log). */
  relearn(siteId: number, url: string, anchor: string | null, cues: string | null, reward: number): void {
    this.model.learn(siteId, this.cuesOf(url, anchor, cues), reward);
  }

  children(page: FrontierPage, reward: number, links: OrderedLink[]): { state: OrderState; priority: number }[] {
    const site = page.siteId;
    const m = this.model;
    const mean = m.siteMean(site);
    const parentState = page.state ?? { cues: '', cash: page.level === 0 ? 1 : 0, inherit: 0, dist: 0, inlinks: 0 };
    const parent = { state: { ...parentState, cues: [] }, relevance: yieldRelevance(reward, mean) };
    const children = links.map((l) => {
      const cues = l.known ? this.cuesOf(l.url, l.anchor, l.known.cues) : this.cuesOf(l.url, l.anchor, l.cues);
      const known: LinkState | null = l.known ? { ...l.known, cues } : null;
      return { cues, value: neighbourhood(m.predict(site, cues), mean), known };
    });
    const pages = m.sitePages(site);
    return childStates(parent, children, pages).map((state) => ({
      state: { ...state, cues: joinCues(state.cues) },
      priority: priorityOf(this.order, m, site, state, pages),
    }));
  }

  prioritize = (siteId: number, url: string, anchor: string, state: OrderState): number =>
    priorityOf(this.order, this.model, siteId, { ...state, cues: this.cuesOf(url, anchor, state.cues) }, this.model.sitePages(siteId));

  /** A pull that paid far above its site's mean: its words just became worth following (re-score now). */
  surprise(siteId: number, reward: number): boolean {
    return reward > PROMOTE * (this.model.siteMean(siteId) || Infinity);
  }
}
