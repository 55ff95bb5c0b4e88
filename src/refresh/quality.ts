import { contentValue, type ValueFunction } from './content-value.js';

/**
 * The index quality Q(j) of the S.C.E.N.T. article's formula (1), as we read it (pure). Over the
 * documents d of site j:
 *
 *   Q(j) = Σ_d [ V(current_d) − V(changed_d) ]   over documents the index holds,
 *
 * where current_d is the content of d's indexed copy still on the live page, changed_d the content
 * changed since it was indexed (added, removed or rewritten; all of it when d was deleted), and V
 * the value function (log by default). A document the index does not hold adds nothing, so a new
 * page not yet fetched costs its whole value against Q_max = Σ over live documents of V(size): the
 * value of a perfectly fresh index. Q / Q_max ≤ 1, and is 1 only when every live page is indexed
 * as it is now.
 */
export interface DocTruth {
  /** the page exists now, with liveChars of content */
  alive: boolean;
  liveChars: number;
  /** the index holds a copy of it (fetched, and not found gone since) */
  indexed: boolean;
  /** of the indexed copy: content still as it is live, and content changed since */
  currentChars: number;
  changedChars: number;
}

export function indexQuality(docs: Iterable<DocTruth>, value: ValueFunction = 'log'): { q: number; qMax: number } {
  let q = 0;
  let qMax = 0;
  for (const d of docs) {
    if (d.alive) qMax += contentValue(d.liveChars, value);
    if (d.indexed) q += contentValue(d.currentChars, value) - contentValue(d.changedChars, value);
  }
  return { q, qMax };
}
