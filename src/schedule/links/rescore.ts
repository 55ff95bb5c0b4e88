import type { OrderState } from '../queued-page.js';

/**
 * The priority of a queued page from what the order keeps with it (src/schedule/links). Its url and
 * anchor make its cues when it has none stored; a page with stored cues is scored from them, and
 * the store does not read its url and anchor out ('' then).
 */
export type Prioritize = (siteId: number, url: string, anchor: string, state: OrderState) => number;

/**
 * Which queued pages of a site to score again: all that have a priority; those without one alone
 * (when a crawl starts or sitemaps queued pages: the others keep the priorities an uninterrupted
 * crawl would have given them, so a resume is exact); or those that carry one of these cues (what
 * a pull just taught the model), of a priority over `above` when given (a pull that fell: the
 * pages its cues promoted).
 */
export type Rescore = 'all' | 'unscored' | { cues: readonly string[]; above?: number };

/**
 * Whether a queued page with these stored cues is among `which`. A page without stored cues (a
 * start or sitemap page, a page queued by a breadth-first run) waits for the next whole pass:
 * picking it on every pull that paid would score a queue of them again and again.
 */
export function rescores(which: Rescore, priority: number | null, cues: string | null): boolean {
  if (which === 'unscored') return priority === null;
  if (priority === null) return false; // its turn is the 'unscored' pass
  if (which === 'all') return true;
  if (!cues || (which.above !== undefined && priority <= which.above)) return false;
  const padded = ` ${cues} `;
  return which.cues.some((c) => padded.includes(` ${c} `));
}
