import type { LinkOrder, OrderedLink } from './link-order.js';
import type { Prioritize, Rescore } from './links/rescore.js';
import type { FrontierPage, OrderState } from './queued-page.js';

/**
 * What a pulled page's internal links do to the queue, decided once for the live store
 * (store/pull-writer.ts) and the offline replay (replay/replay-store.ts): a replay that decided
 * by a copy of these rules would drift from the crawl it stands for.
 */

/** A target's new state and priority, as the order scored it. */
export interface Scored {
  state: OrderState;
  priority: number;
}

/**
 * What the walk reads of a store and tells it, for one pulled page `c` (whatever the store
 * needs to write it: its site, its content page). `L` is a link of the page, `H` why a page is
 * stored and never fetched (page/found-links.ts Hold), `P` a stored page as the store hands it
 * back. The store decides nothing.
 */
export interface IntakeStore<L, H, P, C> {
  /** What a link's page is known by: an ordered walk reads each page once. */
  keyOf(l: L): string | number;
  /** The link's own hold: its page is stored, never fetched, and the link moves no known page. */
  heldBy(l: L): H | undefined;
  /**
   * The stored page the link leads to, or undefined: a new page. `withState`: the order scores
   * known pages too (tracksKnown), so whether the page is queued and its state are read with it.
   */
  find(c: C, l: L, withState: boolean): P | undefined;
  levelOf(p: P): number;
  /** Asked of a page found withState. */
  queued(p: P): boolean;
  /** The pulled page links the stored page `p` (the first link's anchor text stays). */
  edge(c: C, p: P, l: L): void;
  /** A stored page found at `level`, nearer than it is: it moves up, and a fetched page what it links. */
  lower(c: C, p: P, level: number): void;
  /** As lower, under an order that does not track known pages: a queued page's nearer level waits beside it (store/queued-levels.ts). */
  nearer(c: C, p: P, level: number): void;
  /** A new page's hold past the link's own (page/link-fate.ts: the query-variant trap), its key counted. */
  trap(c: C, l: L): H | undefined;
  /** A new page stored held. */
  hold(c: C, l: L, hold: H, level: number): void;
  /** A new page queued at `level`; scored in an ordered crawl. */
  insert(c: C, l: L, level: number, scored: Scored | null): void;
  /** The link as the order scores it; `p`: its queued page, whose state an order that tracks known pages reads. */
  asked(c: C, l: L, p: P | undefined): OrderedLink;
  /** The order's new judgment of a queued page, found at `level`. */
  update(c: C, p: P, level: number, scored: Scored): void;
  /** The site's queued pages, counted up to atMost. */
  queuedPages(c: C, atMost: number): number;
  rescore(c: C, prioritize: Prioritize, which: Rescore): void;
}

/** The pull an ordered crawl's order hears before it scores the page's links. */
export interface OrderedPull {
  order: LinkOrder;
  page: FrontierPage;
  reward: number;
  terms: Record<string, number> | undefined;
}

/**
 * The internal links of a page at `level`, its links' pages one level below: a known page gets
 * an edge and, found nearer, moves up (a held link moves nothing); a new one is held or queued.
 * Ordered (`pull`): the order learns the pull first, then scores each distinct new target, and
 * each still queued one when it tracks known pages, and says which of the site's queued pages to
 * score again. Returns the pulled page's relevance to store (ordered crawls), or null.
 */
export function takeLinks<L, H, P, C>(
  store: IntakeStore<L, H, P, C>, c: C, links: readonly L[], level: number, pull: OrderedPull | null,
): number | null {
  if (pull) return takeOrdered(store, c, links, level, pull);
  const next = level + 1;
  // Each link as it comes: a later link to the same page finds it stored.
  for (const l of links) {
    const p = store.find(c, l, false);
    if (p === undefined) {
      if (!heldNew(store, c, l, next)) store.insert(c, l, next, null);
    } else {
      store.edge(c, p, l);
      if (store.levelOf(p) > next && store.heldBy(l) === undefined) store.lower(c, p, next);
    }
  }
  return null;
}

/** A new page stored held, when its link or the trap holds it (true); else the caller queues it. */
function heldNew<L, H, P, C>(store: IntakeStore<L, H, P, C>, c: C, l: L, next: number): boolean {
  const hold = store.heldBy(l) ?? store.trap(c, l);
  if (hold === undefined) return false;
  store.hold(c, l, hold, next);
  return true;
}

function takeOrdered<L, H, P, C>(
  store: IntakeStore<L, H, P, C>, c: C, links: readonly L[], level: number, { order, page, reward, terms }: OrderedPull,
): number | null {
  const relevance = order.learn(page, reward, terms);
  const next = level + 1;
  const tracks = order.tracksKnown;
  // The targets are scored together, then stored: a page linked twice is one target.
  const seen = new Set<string | number>();
  const targets: L[] = [];
  const known: (P | undefined)[] = [];
  const asked: OrderedLink[] = [];
  for (const l of links) {
    const key = store.keyOf(l);
    if (seen.has(key)) continue;
    seen.add(key);
    const p = store.find(c, l, tracks);
    if (p === undefined) {
      if (heldNew(store, c, l, next)) continue;
    } else {
      store.edge(c, p, l);
      const held = store.heldBy(l) !== undefined;
      if (!tracks || !store.queued(p)) {
        if (!held && store.levelOf(p) > next) {
          if (tracks) store.lower(c, p, next);
          else store.nearer(c, p, next);
        }
        continue;
      }
      if (held) continue;
    }
    targets.push(l);
    known.push(p);
    asked.push(store.asked(c, l, p));
  }
  const scored = order.children(page, reward, relevance, asked);
  for (let i = 0; i < targets.length; i++) {
    const p = known[i];
    if (p === undefined) store.insert(c, targets[i]!, next, scored[i]!);
    else store.update(c, p, next, scored[i]!);
  }
  const which = order.rescoreAfter(page, reward, (atMost) => store.queuedPages(c, atMost));
  if (which) store.rescore(c, order.prioritize, which);
  return relevance;
}
