import { argmax, mean, openArms, unfinishedBatch, warmupPick } from './common.js';
import type { Policy } from './policy.js';

/**
 * R2, the article's "Gittins index" (really a greedy mean with a batch step): n pages on every
 * site in turn, then repeatedly n pages on the open site with the largest s(i)/t(i).
 * Ties: lowest id.
 *
 * Stateless: a batch is unfinished while its site's own pull count is not a multiple of n
 * (see unfinishedBatch), so a re-created instance finishes the batch in progress. A site that
 * closes mid-batch ends its batch; the next decision happens at once. s(i)/t(i) uses
 * completed pulls only (an in-flight page has no reward yet; counting it as 0 would penalise
 * a site for being fetched).
 */
export function gittins(step: number): Policy {
  return ({ arms }) => {
    const open = openArms(arms);
    if (open.length === 0) return null;
    return warmupPick(open, step) ?? unfinishedBatch(open, step) ?? argmax(open, mean);
  };
}
