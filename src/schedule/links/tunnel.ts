import { RELEVANT } from './relevance.js';

/**
 * Tunneling (the article's adaptive cutoff): a link found on a relevant page starts at distance
 * 0; one found on an irrelevant page is one step further from the last relevant page, plus up to
 * one more the less relevant the page was (a page of relevance 0 counts 2, one just below
 * RELEVANT nearly 1). Links past CUTOFF are deferred, not dropped: they are crawled after every
 * nearer page of the site. With CUTOFF 4 a hub behind two dull index pages is still in reach:
 * relevant → dull (0) → dull (2) → hub (4). `relevant`: where relevance starts (RELEVANT, or a
 * focused crawl's threshold). Pure.
 */
export const CUTOFF = 4;

export function childDistance(parentDistance: number, parentRelevance: number, relevant = RELEVANT): number {
  if (parentRelevance >= relevant) return 0;
  return parentDistance + 1 + (1 - parentRelevance / relevant);
}

export const beyondCutoff = (distance: number): boolean => distance > CUTOFF;
