import { splitCash } from './cash.js';
import type { LinkState } from './priority.js';
import { inherited, potential } from './shark.js';
import { templateWeight } from './template.js';
import { childDistance } from './tunnel.js';
import { RELEVANT } from './relevance.js';

/** A fetched page, as its links see it. */
export interface Parent {
  state: LinkState;
  /** its relevance in [0, 1) (relevance.ts, or topic similarity in focused crawls) */
  relevance: number;
}

/** One distinct internal link of the fetched page: its cues' neighbourhood score and its stored state (null: a new page). */
export interface Child {
  cues: readonly string[];
  /** neighbourhood score in [0, 1) (shark.ts), the OTIE weight before the template discount */
  value: number;
  known: LinkState | null;
}

/** Small weight every link keeps, so a page of only unpromising links still passes its cash on. */
export const FLOOR = 0.05;

/**
 * What a fetched page passes to its out-links (all of them queued pages): a share of its cash
 * (OTIE, template links discounted), an inherited score (Shark-Search), a tunnel distance, and
 * one more linking page. A page already queued keeps the best of what it had and what it gets
 * now: cash adds up, inheritance and distance take the max and the min. Pure: the same page and
 * links give the same states, so a resumed crawl computes what an uninterrupted one did.
 */
export function childStates(parent: Parent, children: readonly Child[], sitePages: number, byPotential = false, relevant = RELEVANT): LinkState[] {
  const inherit = inherited(parent.relevance, parent.state.inherit);
  // byPotential: the article's full method splits by Shark-Search potential, OTIE by the neighbourhood alone
  const weights = children.map((c) => ((byPotential ? potential(inherit, c.value) : c.value) + FLOOR) * templateWeight((c.known?.inlinks ?? 0) + 1, sitePages));
  const shares = splitCash(parent.state.cash, weights);
  const dist = childDistance(parent.state.dist, parent.relevance, relevant);
  return children.map((c, i) => {
    const k = c.known;
    return k
      ? { cues: k.cues, cash: k.cash + shares[i]!, inherit: Math.max(k.inherit, inherit), dist: Math.min(k.dist, dist), inlinks: k.inlinks + 1 }
      : { cues: c.cues, cash: shares[i]!, inherit, dist, inlinks: 1 };
  });
}
