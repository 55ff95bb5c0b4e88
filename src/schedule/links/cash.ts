/**
 * OPIC / OTIE cash. A site's start page holds cash 1. When a page is fetched its cash is split
 * among the queued pages it links to in proportion to their weights (OTIE: their predicted value;
 * OPIC would split evenly, which is what all-zero weights give) and the page keeps none, so cash
 * is conserved along the crawl: the frontier's cash plus what fetched dead ends held is always 1
 * per site. Pure.
 */
export const START_CASH = 1;

export function splitCash(cash: number, weights: readonly number[]): number[] {
  const total = weights.reduce((a, w) => a + Math.max(0, w), 0);
  if (weights.length === 0) return [];
  if (total <= 0) return weights.map(() => cash / weights.length);
  return weights.map((w) => (cash * Math.max(0, w)) / total);
}
