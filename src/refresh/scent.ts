import { contentValue, type ValueFunction } from './content-value.js';

/**
 * S.C.E.N.T.'s scent arithmetic (pure). A page's scent says how likely a check of it is to pay.
 * Checking it halves the scent, then adds the value of what the check harvested (the content
 * found changed, new or gone); after each iteration every page gains ΔS. With ΔS = 0 a page
 * found unchanged a few times sinks for good; as ΔS grows, the halving alone orders the pages and
 * the schedule becomes uniform revisiting.
 */
export function afterCheck(scent: number, harvestedChars: number, value: ValueFunction): number {
  return scent / 2 + contentValue(harvestedChars, value);
}

export function afterIteration(scent: number, delta: number): number {
  return scent + delta;
}

/** A page's scent when refreshing starts: the value of its content (what a check could find changed). */
export function initialScent(textSize: number | null, value: ValueFunction): number {
  return contentValue(textSize ?? 0, value);
}
