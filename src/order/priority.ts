import type { CueModel } from './model.js';
import { linkCues } from './cues.js';

/**
 * A queued link's priority in a best-first crawl: the new external URLs its cues predict (higher
 * first; ties in breadth-first order). Shark-Search also lets a link inherit from the page that
 * linked it; measured on the replay web that lost group B's links (inheriting a quarter of the
 * parent's yield: 6 % of the oracle at B/500 and 37 % at B/1000, against 28 % and 97 % without), so
 * the priority is the prediction alone.
 */
export function linkPriority(model: CueModel, siteId: number, url: string, anchor: string): number {
  return model.predict(siteId, linkCues(url, anchor));
}

/**
 * Every BREADTH_EVERY-th page of a site is its next in breadth-first order instead: the model
 * knows only what the site has shown so far, and a hub one level down behind dull pages
 * (docs.dask.org's at BFS page 78) must still be reached. Measured on the replay web: every 3rd
 * page lost B/1000 (6 %); every 2nd is the table in the README.
 */
export const BREADTH_EVERY = 2;

/** A site's queued links are scored again every RESCORE_EVERY of its pulls (the model has learned more). */
export const RESCORE_EVERY = 25;
