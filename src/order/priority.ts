import type { CueModel } from './model.js';
import { linkCues } from './cues.js';

/**
 * A queued link's priority in a best-first crawl. A link whose cues predict more than PROMOTE
 * times the site's mean yield of new external URLs is promoted, the most promising first; every
 * other link gets 0 and waits in breadth-first order (the frontier breaks ties by level, then
 * discovery). So the crawl stays breadth-first until the site has shown which words lead to its
 * link pages, and a hub one level down behind dull pages is still reached in breadth-first time.
 *
 * Measured on the replay web (npm run bench:order): pure best-first on the prediction lost group
 * B's hubs (B/500 4.7 % of the BFS oracle against BFS's 34.3 %); taking every 2nd page
 * breadth-first instead: B/500 28.2 %; promoting above 2x the mean: 34.4 %, and as good or better
 * than breadth-first in every other cell (the README has the table). Shark-Search's inheritance
 * from the linking page (a quarter of its yield) lost B/1000 (37 % against 97 %) and is left out.
 */
export const PROMOTE = 2;

export function linkPriority(model: CueModel, siteId: number, url: string, anchor: string): number {
  const p = model.predict(siteId, linkCues(url, anchor));
  return p > PROMOTE * model.siteMean(siteId) ? p : 0;
}

/** A site's queued links are scored again every RESCORE_EVERY of its pulls (the model has learned more). */
export const RESCORE_EVERY = 25;
