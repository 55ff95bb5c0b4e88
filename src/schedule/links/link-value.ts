import { CUE_KINDS } from './cues.js';
import type { CueModel, CuePrior } from './model.js';

/**
 * `--order value`: a link's worth as the predicted number of new external URLs its page will
 * bring (the cue model: its URL words, anchor, the text before it, the linking page's title and
 * its block, the tag path, each learned per site over a prior from the other sites), plus
 * optimism for a block the site has not tried yet: links of the same list of the same template
 * pay alike, so one pull of a new block says what the whole block is worth (SB-CLASSIFIER's
 * groups, with an optimistic index instead of a sleeping bandit). The value is in the same unit
 * on every site, so one scheduler can compare the next pages of all sites (schedule/sites/pages.ts).
 * Pure.
 */
export interface ValueParams {
  /** optimism for an untried block, as a multiple of the site's mean yield, shrinking as 1/sqrt(1 + pulls of the block) */
  explore: number;
  /** kinds of cue left out (u, a, c, h, p: cues.ts), to measure what each earns */
  drop?: readonly string[];
  /** what cues paid on other sites, learned offline (model.ts CuePrior) */
  prior?: CuePrior | null;
}

/**
 * What the leave-sites-out choice (bench:harvest's pages+model) picks when all 20 sites of the
 * replay web train it: no optimism, and only the anchor and the block. The URL's words, the text
 * before the link and the page's title fit the training sites and mislead on others.
 */
export const VALUE_DEFAULTS: ValueParams = { explore: 0, drop: ['u', 'c', 'h'] };

/** The kinds of cue the value order reads (the others need not be made: cues.ts). */
export const valueKinds = (p: ValueParams): string[] => CUE_KINDS.filter((k) => !p.drop?.includes(k));

export function linkValue(model: CueModel, siteId: number, all: readonly string[], p: ValueParams = VALUE_DEFAULTS): number {
  return siteValues(model, siteId, p)(all);
}

/**
 * linkValue of the site's links while the model stays as it is (one page's new links, one pass
 * over a queue): the site's figures are read once, and each cue's prediction once (a block's cue
 * is on hundreds of its links).
 */
export function siteValues(model: CueModel, siteId: number, p: ValueParams = VALUE_DEFAULTS): (cues: readonly string[]) => number {
  const belief = model.siteBelief(siteId);
  const pages = model.sitePages(siteId);
  const optimism = p.explore * model.siteMean(siteId);
  const predicted = new Map<string, number | null>(); // null: a kind of cue left out
  return (cues) => {
    let best = belief;
    let block: string | undefined;
    for (const c of cues) {
      let v = predicted.get(c);
      if (v === undefined) predicted.set(c, (v = p.drop?.includes(c.slice(0, c.indexOf(':'))) ? null : model.cuePredict(siteId, c, belief)));
      if (v === null) continue;
      if (v > best) best = v;
      if (block === undefined && c.startsWith('p:')) block = c;
    }
    if (optimism === 0) return best; // what the block was tried does not matter
    const tried = block === undefined ? pages : model.siteCount(siteId, block);
    return best + optimism / Math.sqrt(1 + tried);
  };
}

/**
 * Inside a site the value order compares pages by their value over the site's mean (a mean below
 * one URL a page counts as one), rounded to a quarter octave. A queued page's stored
 * priority then changes only when its worth among the site's pages does, not whenever the mean
 * moves: re-scoring a site's queue rewrites few rows. Ties fall to breadth-first order.
 */
export function relativeValue(value: number, siteMean: number): number {
  const r = value / Math.max(siteMean, 1);
  return r > 0 ? 2 ** (Math.round(Math.log2(r) * 4) / 4) : 0;
}

/**
 * A relative priority in URLs a page, made optimistic: the page's lift (its value over the site's
 * believed yield when it was scored, a belief under one URL a page counted as one) times the
 * site's optimistic yield now (site-belief.ts). What the pages scheduler compares across sites.
 * Not divided by the belief now: a site whose belief fell under one URL a page since its queue
 * was scored would have its stale lifts multiplied by up to 1 / belief until the next pass, and
 * a barren site kept pulls it had not earned (up to 25, a whole pass).
 */
export function absoluteValue(relative: number, optimistic: number): number {
  return relative * optimistic;
}
