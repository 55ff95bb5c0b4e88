/**
 * How well a refresh run caught the external links the changing web published (bench:refresh).
 * The web's feeds publish items at known times, some with an external link; the database says
 * when the crawler first stored each external URL (external_links.found_at, in virtual time:
 * the checker writes with the run's clock).
 */
import type { ChangingWeb } from '../fixtures/changing-web/model.js';
import type { Db } from '../src/db/db.js';

export interface LinkCatch {
  /** distinct external URLs first stored after `start` */
  newUrls: number;
  /** items with an external link published in (start, lastCheck], and how many were stored by `end` */
  items: number;
  caught: number;
  /** mean hours from an item's publication to its link being stored, over the caught ones */
  meanDelayH: number | null;
}

export function linkCatch(db: Db, web: ChangingWeb, start: number, lastCheck: number, end: number): LinkCatch {
  const firstSeen = new Map<string, number>();
  const rows = db.prepare(`SELECT url, min(found_at) AS at FROM external_links WHERE found_at IS NOT NULL GROUP BY url`).all() as { url: string; at: string }[];
  let newUrls = 0;
  for (const r of rows) {
    const at = Date.parse(r.at);
    firstSeen.set(r.url, at);
    if (at > start) newUrls++;
  }
  // Only what a check could have seen: published after the start, at or before the last iteration.
  const items = web.items(undefined, lastCheck).filter((i) => i.external !== undefined && i.published > start);
  let caught = 0;
  let delay = 0;
  for (const i of items) {
    const at = firstSeen.get(i.external!);
    if (at === undefined || at > end) continue;
    caught++;
    delay += Math.max(0, at - i.published);
  }
  return { newUrls, items: items.length, caught, meanDelayH: caught ? delay / caught / 3_600_000 : null };
}
