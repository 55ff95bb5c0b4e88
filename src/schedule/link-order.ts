import type { FrontierPage, OrderState } from './queued-page.js';
import type { Prioritize, Rescore } from './links/rescore.js';
import { childStates } from './links/children.js';
import { CUE_KINDS, joinCues, linkCues, splitCues } from './links/cues.js';
import { CueModel } from './links/model.js';
import { focusedPriority, priorityOf, PROMOTE, rescoreDue, START, type LinkState, type Order } from './links/priority.js';
import { absoluteValue, relativeValue, siteValues, VALUE_DEFAULTS, valueKinds, type ValueParams } from './links/link-value.js';
import { shippedValue } from './links/shipped-prior.js';
import { yieldRelevance } from './links/relevance.js';
import { neighbourhood } from './links/shark.js';
import type { Topic } from './focus/topic.js';
import { stem } from './focus/terms.js';

/** How a pulled page's links are ordered (link-intake.ts asks it, for the pull writer and the replay alike). */
export interface LinkOrder {
  /**
   * The pulled page gave `reward` (and in a focused crawl has these terms): heard before its links
   * are scored (the order learns from it). Returns the page's relevance to store, or null.
   */
  learn(page: FrontierPage, reward: number, terms: Record<string, number> | undefined): number | null;
  /**
   * Whether a link to a page already queued changes its state and priority (cash, inheritance,
   * in-links do). False: a queued page keeps its priority until its site's queue is scored again,
   * and such a link only raises its level (children() hears new pages alone).
   */
  readonly tracksKnown: boolean;
  /**
   * After this pull, learned, which of the site's queued pages are due to be scored again (null:
   * none; `queued(atMost)` counts them, up to atMost): the writer does it with the pull, in its
   * transaction, so a resumed crawl finds the queue as an uninterrupted one had it.
   */
  rescoreAfter(page: FrontierPage, reward: number, queued: (atMost: number) => number): Rescore | null;
  prioritize: Prioritize;
  /** The new state and priority of each distinct queued (when tracksKnown) or new page the pulled page links to. */
  children(page: FrontierPage, reward: number, relevance: number | null, links: OrderedLink[]): { state: OrderState; priority: number }[];
}

/** A link of the pulled page, as the order scores it. */
export interface OrderedLink {
  url: string;
  anchor: string;
  cues: string | undefined;
  /** its stored state, when the page is queued already */
  known: OrderState | null;
}

/**
 * The order of an ordered crawl (links/): one cue model learned from every pulled
 * page, the pulled page's links scored with it. A page queued by a breadth-first run has no
 * stored cues: its URL and anchor give them. With a topic (`--focus`, focus/) a page's
 * relevance is its similarity to the topic and a link's neighbourhood the similarity of its
 * words; without one both come from the yield of new external URLs.
 */
export class CrawlOrder implements LinkOrder {
  readonly model: CueModel;

  constructor(
    readonly order: Order,
    readonly topic: Topic | null = null,
    readonly value: ValueParams = order === 'value' ? shippedValue() : VALUE_DEFAULTS,
  ) {
    this.model = new CueModel(value.prior ?? null);
    this.kinds = order === 'value' && !topic ? valueKinds(value) : CUE_KINDS;
  }

  /**
   * The value order reads a queued page's cues alone, which a new link to it does not change; its
   * priority follows the model when the site's queue is scored again (rescoreAfter).
   */
  get tracksKnown(): boolean {
    return this.order !== 'value';
  }

  /** The kinds of cue the order reads: the others are not made (nor learned, which changes no prediction). */
  private readonly kinds: readonly string[];

  private cuesOf(url: string, anchor: string | null | undefined, cues: string | null | undefined): string[] {
    return cues ? splitCues(cues) : linkCues(url, anchor ?? '', {}, this.kinds);
  }

  learn(page: FrontierPage, reward: number, terms: Record<string, number> | undefined): number | null {
    this.model.learn(page.siteId, this.cuesOf(page.url, page.anchor, page.state?.cues), reward);
    return this.topic ? this.topic.observe(terms ?? {}) : null;
  }

  /** Learn a pull of an earlier run (a resumed crawl rebuilds the model and topic from the pull log). */
  relearn(siteId: number, url: string, anchor: string | null, cues: string | null, reward: number, terms: string | null): void {
    this.model.learn(siteId, this.cuesOf(url, anchor, cues), reward);
    this.topic?.observe(terms ? (JSON.parse(terms) as Record<string, number>) : {});
  }

  /** A link's neighbourhood score in [0, 1): the words of its cues against the topic, or its predicted yield. */
  private neighbourhood(siteId: number, cues: readonly string[]): number {
    if (!this.topic) return neighbourhood(this.model.predict(siteId, cues), this.model.siteMean(siteId));
    const counts: Record<string, number> = {};
    for (const c of cues) {
      if (c.startsWith('p:')) continue; // a tag path is not a word
      const t = stem(c.slice(2));
      counts[t] = (counts[t] ?? 0) + 1;
    }
    return this.topic.similarity(counts);
  }

  /** A link's priority from its cues and the rest of its state (which the value order does not read). */
  private priority(siteId: number, cues: readonly string[], state: Omit<LinkState, 'cues'>): number {
    if (this.topic) return focusedPriority(this.order, { ...state, cues }, this.neighbourhood(siteId, cues));
    if (this.order === 'value') return this.relativeValues(siteId)(cues);
    return priorityOf(this.order, this.model, siteId, { ...state, cues }, this.model.sitePages(siteId), this.value);
  }

  /** The value order's priorities of a site's links, kept while the model learns nothing (a page's links, a pass over a queue). */
  private relativeValues(siteId: number): (cues: readonly string[]) => number {
    const k = this.values;
    if (k?.siteId === siteId && k.learned === this.model.learned) return k.of;
    const value = siteValues(this.model, siteId, this.value);
    const belief = this.model.siteBelief(siteId);
    const of = (cues: readonly string[]) => relativeValue(value(cues), belief);
    this.values = { siteId, learned: this.model.learned, of };
    return of;
  }

  private values: { siteId: number; learned: number; of: (cues: readonly string[]) => number } | null = null;

  /** A queued page's priority in one unit for every site (the pages scheduler compares sites by it). */
  worth(siteId: number, priority: number): number {
    return this.worthMoves(priority) ? absoluteValue(priority, this.model.siteIndex(siteId)) : priority;
  }

  /**
   * At least worth(s, q) of every site s and every priority q <= `priority` whose worth moves
   * (worthMoves): a relative value is never negative, and absoluteValue grows with both factors.
   */
  worthCeiling(priority: number): number {
    return absoluteValue(priority, this.model.indexCeiling());
  }

  /** Whether worth(·, priority) moves as the crawl learns (every pull moves the crawl's mean), or is the priority itself. */
  worthMoves(priority: number): boolean {
    return this.order === 'value' && !this.topic && priority !== START;
  }

  children(page: FrontierPage, reward: number, relevance: number | null, links: OrderedLink[]): { state: OrderState; priority: number }[] {
    const site = page.siteId;
    if (this.order === 'value' && !this.topic) return links.map((l) => this.valued(site, l));
    const parentState = page.state ?? { cues: '', cash: page.level === 0 ? 1 : 0, inherit: 0, dist: 0, inlinks: 0 };
    const parent = { state: { ...parentState, cues: [] }, relevance: relevance ?? yieldRelevance(reward, this.model.siteMean(site)) };
    const children = links.map((l) => {
      const cues = l.known ? this.cuesOf(l.url, l.anchor, l.known.cues) : this.cuesOf(l.url, l.anchor, l.cues);
      const known: LinkState | null = l.known ? { ...l.known, cues } : null;
      return { cues, value: this.neighbourhood(site, cues), known };
    });
    const pages = this.model.sitePages(site);
    const focused = this.topic !== null;
    return childStates(parent, children, pages, focused && this.order === 'best-first', focused ? this.topic!.threshold : undefined).map((state) => ({
      state: { ...state, cues: joinCues(state.cues) },
      priority: this.priority(site, state.cues, state),
    }));
  }

  /**
   * A new page of a value-ordered crawl: its value reads its cues alone, so the states the other
   * orders pass down (cash, inheritance, distance, in-links) are not computed, and its cues are
   * stored as the analysis joined them.
   */
  private valued(site: number, l: OrderedLink): { state: OrderState; priority: number } {
    const cues = l.cues; // the value order hears new pages alone (tracksKnown)
    const split = this.cuesOf(l.url, l.anchor, cues);
    const state = { cues: cues || joinCues(split), cash: 0, inherit: 0, dist: 0, inlinks: 0 };
    return { state, priority: this.priority(site, split, state) };
  }

  prioritize = (siteId: number, url: string, anchor: string, state: OrderState): number =>
    this.priority(siteId, this.cuesOf(url, anchor, state.cues), state);

  /**
   * With --order value, a page the model promoted (valued over PROMOTE times the site's belief)
   * that paid under 1/PROMOTE of its value: the cues that promoted it just fell, and the pages
   * that share them, scored before, would otherwise keep their value until the next whole pass.
   */
  private fell(page: FrontierPage, reward: number): boolean {
    const p = page.priority;
    if (this.order !== 'value' || this.topic || p === undefined || p === START || p <= PROMOTE) return false;
    return reward * PROMOTE < p * Math.max(this.model.siteBelief(page.siteId), 1);
  }

  /**
   * The whole queue every RESCORE_EVERY pulls of the site (less often for a long queue, which a
   * pull that paid does not re-score: priority.ts rescoreDue). After a pull that paid far above
   * the site's mean, with --order value the pages that share a cue with it: its words and its
   * block just became worth following, and the others' worth relative to the site's mean (the
   * value order's unit) has hardly moved; after a pull that fell far under its value (fell), the
   * pages its words and its block promoted: they just lost what promoted them.
   */
  rescoreAfter(page: FrontierPage, reward: number, queued: (atMost: number) => number): Rescore | null {
    const site = page.siteId;
    const paid = !this.topic && reward > PROMOTE * (this.model.siteMean(site) || Infinity);
    const fell = !paid && this.fell(page, reward);
    const due = rescoreDue(this.model.sitePages(site), paid || fell, queued);
    if (due === null) return null;
    if (due === 'whole') return 'all';
    // The other orders' priorities are in URLs a page, which the new mean moves for every page.
    if (this.order !== 'value') return 'all';
    // The kinds the order reads alone: a cue of another kind (a page graph keeps them all) says nothing of the page's worth.
    const cues = this.cuesOf(page.url, page.anchor, page.state?.cues).filter((c) => this.kinds.includes(c.slice(0, c.indexOf(':'))));
    // A pull that fell lowers what its cues promoted: the pages they left at or under the site's belief stay as they are.
    return fell ? { cues, above: PROMOTE } : { cues };
  }
}
