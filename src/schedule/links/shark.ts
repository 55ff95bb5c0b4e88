/**
 * Shark-Search (Hersovici et al.), the scores a link gets before it is fetched. A child inherits
 * DECAY times its parent's relevance, or, when the parent was irrelevant, DECAY times what the
 * parent itself inherited (so value fades along a path of dull pages instead of vanishing). Its
 * potential mixes that inheritance with its neighbourhood score (anchor, text around it, URL,
 * parent title: here the learned cue prediction of model.ts, scaled to [0, 1)). Pure.
 */
export const DECAY = 0.5; // the article's alpha (Shark-Search's delta)
export const GAMMA = 0.5; // weight of inheritance against neighbourhood

export function inherited(parentRelevance: number, parentInherited: number): number {
  return DECAY * (parentRelevance > 0 ? parentRelevance : parentInherited);
}

export function potential(inheritedScore: number, neighbourhood: number): number {
  return GAMMA * inheritedScore + (1 - GAMMA) * neighbourhood;
}

/** A predicted yield of new external URLs as a score in [0, 1), on the scale of yieldRelevance. */
export function neighbourhood(predicted: number, siteMean: number): number {
  return predicted <= 0 ? 0 : predicted / (predicted + Math.max(1, siteMean));
}
