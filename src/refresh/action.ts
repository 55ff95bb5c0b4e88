import { retryableStatus } from '../net/failure-rule.js';

/** What a re-check does with a page (refreshes.action). */
export type RefreshAction = 'keep' | 'replace' | 'gone' | 'retry';

/**
 * What a refresh does with a page's new answer (pure). 304, or a page whose text and links are
 * as they were (`same`: its fingerprint, page-fingerprint.ts): the page is as it was. 404/410:
 * gone. A server or network failure says nothing about the page: it keeps its links, the next
 * refresh asks again. Anything else (a changed page, another 4xx, an off-site redirect) is what a
 * crawl would store now: the page's links are replaced by it.
 */
export function refreshAction(httpStatus: number | null, same = false): RefreshAction {
  if (httpStatus === 304) return 'keep';
  if (httpStatus === 404 || httpStatus === 410) return 'gone';
  // failing for now by the crawl's failure rule, or no HTTP answer at all (a status past 599)
  if (httpStatus === null || httpStatus > 599 || retryableStatus(httpStatus)) return 'retry';
  return same ? 'keep' : 'replace';
}
