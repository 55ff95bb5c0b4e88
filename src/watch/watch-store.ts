import type { Db } from '../db/db.js';
import { greatest, inJsonIds, insertIgnore, onConflictIgnore, typed } from '../db/dialect.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import type { Appearance } from './appearance.js';
import type { Check } from './schedule.js';
import type { RefreshLogAction } from '../refresh/refresh-log.js';
import type { Validators } from '../net/fetch-page.js';

/**
 * The watch's tables: hubs, the new items found on them, the check log.
 * Every statement reads through an index (a hub's due time, its checks, a group's items by time,
 * a page's edges and external links), so a check costs the same on a big database.
 */

export type HubAdded = 'auto' | 'manual';

export interface Hub extends FrontierPage {
  group: string;
  added: HubAdded;
  addedAt: number;
  firstCheck: number | null;
  lastCheck: number | null;
  nextCheck: number | null;
}

export interface NewItem {
  kind: 'page' | 'external';
  url: string;
}

export interface StoredItem extends Appearance {
  kind: 'page' | 'external';
  url: string;
  hub: number;
  group: string;
  found: number;
}

export interface CheckRow {
  hub: number;
  at: number;
  action: RefreshLogAction;
  httpStatus: number | null;
  newItems: number;
  nextCheck: number;
  schedule: string;
  validators: Validators;
}

const HUB_COLUMNS = `h.page_id AS id, p.site_id AS siteId, p.url, p.level, h.grp AS "group", h.added, h.added_at AS addedAt,
  h.first_check AS firstCheck, h.last_check AS lastCheck, h.next_check AS nextCheck`;

export class WatchStore {
  private s;

  constructor(private db: Db) {
    // @sites: a JSON array of site ids, or NULL for all (typed on PostgreSQL, which cannot tell the type of a parameter only tested for NULL)
    const inSites = (column: string) => `(${typed(db, '@sites', 'jsonb')} IS NULL OR ${inJsonIds(db, column, '@sites')})`;
    this.s = {
      hub: db.prepare(`SELECT ${HUB_COLUMNS} FROM watch_hubs h JOIN pages p ON p.id = h.page_id WHERE h.page_id = ?`),
      // The existing row's columns named by its table: PostgreSQL finds a bare name ambiguous (excluded has it too).
      add: db.prepare(
        `INSERT INTO watch_hubs (page_id, site_id, grp, added, added_at) VALUES (@id, @site, @grp, @added, @at)
         ON CONFLICT (page_id) DO UPDATE SET removed_at = NULL, added = CASE WHEN @added = 'manual' THEN 'manual' ELSE watch_hubs.added END
         WHERE @added = 'manual' OR watch_hubs.removed_at IS NULL`,
      ),
      remove: db.prepare(`UPDATE watch_hubs SET removed_at = ?, next_check = NULL WHERE page_id = ? AND removed_at IS NULL`),
      // The earliest due first: hubs never checked (NULL, due now), then by next check, which
      // watch_due walks in order.
      // @skip: a JSON array of hub ids passed over (hubs the watcher put off)
      dueNew: db.prepare(
        `SELECT ${HUB_COLUMNS} FROM watch_hubs h JOIN pages p ON p.id = h.page_id
          WHERE h.removed_at IS NULL AND h.next_check IS NULL AND ${inSites('h.site_id')} AND NOT ${inJsonIds(db, 'h.page_id', '@skip')}
          ORDER BY h.page_id LIMIT 1`,
      ),
      due: db.prepare(
        `SELECT ${HUB_COLUMNS} FROM watch_hubs h JOIN pages p ON p.id = h.page_id
          WHERE h.removed_at IS NULL AND h.next_check IS NOT NULL AND ${inSites('h.site_id')} AND NOT ${inJsonIds(db, 'h.page_id', '@skip')}
          ORDER BY h.next_check, h.page_id LIMIT 1`,
      ),
      list: db.prepare(
        `SELECT ${HUB_COLUMNS}, (SELECT count(*) FROM watch_checks c WHERE c.hub_id = h.page_id) AS checks,
                (SELECT count(*) FROM watch_items i WHERE i.hub_id = h.page_id) AS items
           FROM watch_hubs h JOIN pages p ON p.id = h.page_id WHERE h.removed_at IS NULL ORDER BY h.page_id`,
      ),
      // The hub's links first seen at or after `since`: new child pages (edges) and new external links.
      // Bounded above too: a re-read stamps the edges a crawl wrote with the crawl's time, which on a
      // virtual clock (benches, tests) may lie after the check.
      newPages: db.prepare(`SELECT d.url FROM edges e JOIN pages d ON d.id = e.dst WHERE e.src = ? AND e.found_at >= ? AND e.found_at <= ? AND e.gone_at IS NULL AND e.dst <> e.src`).pluck(),
      newExternal: db.prepare(`SELECT url FROM external_links WHERE page_id = ? AND found_at >= ? AND found_at <= ? AND gone_at IS NULL`).pluck(),
      lastRead: db.prepare(
        `SELECT ${greatest(db, `coalesce(p.fetched_at, '')`, `coalesce((SELECT at FROM refreshes r WHERE r.page_id = p.id ORDER BY seq DESC LIMIT 1), '')`)} FROM pages p WHERE p.id = ?`,
      ).pluck(),
      item: db.prepare(
        `${insertIgnore(db)} INTO watch_items (hub_id, kind, url, grp, found_at, from_t, to_t, point, source)
         VALUES (@hub, @kind, @url, @group, @found, @from, @to, @point, @source)${onConflictIgnore(db)}`,
      ),
      check: db.prepare(
        `INSERT INTO watch_checks (hub_id, at, action, http_status, new_items, next_check, schedule, etag, last_modified)
         VALUES (@hub, @at, @action, @httpStatus, @newItems, @nextCheck, @schedule, @etag, @lastModified)`,
      ),
      setHub: db.prepare(`UPDATE watch_hubs SET last_check = @at, first_check = coalesce(first_check, @at), next_check = @next WHERE page_id = @hub`),
      // the subquery aliased: PostgreSQL before 16 requires it
      history: db.prepare(`SELECT at, new_items > 0 AS found FROM (SELECT at, new_items FROM watch_checks WHERE hub_id = ? ORDER BY seq DESC LIMIT ?) c ORDER BY at`),
      groupItems: db.prepare(`SELECT hub_id AS hub, from_t AS "from", to_t AS "to", point FROM watch_items WHERE grp = ? AND to_t > ?`),
      groupCounts: db.prepare(`SELECT grp AS "group", count(*) AS n FROM watch_items WHERE to_t > ? GROUP BY grp`),
      groups: db.prepare(`SELECT grp AS "group", min(first_check) AS since, count(*) AS hubs FROM watch_hubs WHERE removed_at IS NULL GROUP BY grp`),
      // Pages whose re-checks found links new on them (beebot refresh, crawl --refresh). A re-check:
      // the page had been read before, by the crawl (a fetch) or an earlier check; a page a
      // refresh reads for the first time has all its links "added" and is no hub for that.
      refreshHubs: db.prepare(
        `SELECT DISTINCT r.page_id FROM refreshes r JOIN pages p ON p.id = r.page_id
          WHERE r.links_added > 0 AND p.status = 'done' AND ${inSites('p.site_id')}
            AND (EXISTS (SELECT 1 FROM fetches f WHERE f.page_id = r.page_id)
                 OR EXISTS (SELECT 1 FROM refreshes q WHERE q.page_id = r.page_id AND q.seq < r.seq AND q.action IN ('keep', 'replace')))
            AND NOT EXISTS (SELECT 1 FROM watch_hubs h WHERE h.page_id = r.page_id)`,
      ).pluck(),
      page: db.prepare(`SELECT id, site_id AS siteId, url FROM pages WHERE id = ?`),
      validators: db.prepare(`SELECT etag, last_modified AS lastModified FROM watch_checks WHERE hub_id = ? AND action <> 'skipped' ORDER BY seq DESC LIMIT 1`),
      removedAt: db.prepare(`SELECT removed_at FROM watch_hubs WHERE page_id = ?`).pluck(),
      lastCheckAt: db.prepare(`SELECT max(at) FROM watch_checks`).pluck(),
    };
  }

  /** The page's URL. */
  pageUrl(id: number): string | undefined {
    return (this.s.page.get(id) as { url: string } | undefined)?.url;
  }

  /** Whether the page was a hub and was removed (not watched now, nor added back automatically). */
  isRemoved(id: number): boolean {
    return (this.s.removedAt.get(id) ?? null) !== null;
  }

  /** When the last watch check ran (epoch ms), or null before the first. */
  lastCheckAt(): number | null {
    return (this.s.lastCheckAt.get() as number | null) ?? null;
  }

  hub(id: number): Hub | undefined {
    return this.s.hub.get(id) as Hub | undefined;
  }

  /** Watch a page (again). A manual add also brings back a removed hub; an automatic one does not. Returns whether it changed anything. */
  add(pageId: number, group: string, added: HubAdded, at: number): boolean {
    const p = this.s.page.get(pageId) as { id: number; siteId: number } | undefined;
    if (!p) throw new RangeError(`no page ${pageId}`);
    return this.s.add.run({ id: pageId, site: p.siteId, grp: group, added, at }).changes > 0;
  }

  remove(pageId: number, at: number): boolean {
    return this.s.remove.run(at, pageId).changes > 0;
  }

  /** The hub due first (of these sites; null: all), but those of `skip`. */
  nextDue(sites: number[] | null, skip: readonly number[] = []): Hub | undefined {
    const arg = { sites: sites === null ? null : JSON.stringify(sites), skip: JSON.stringify(skip) };
    return (this.s.dueNew.get(arg) ?? this.s.due.get(arg)) as Hub | undefined;
  }

  list(): (Hub & { checks: number; items: number })[] {
    return this.s.list.all() as (Hub & { checks: number; items: number })[];
  }

  /** What a check of hub `id` started at `since` and written at `until` (ISO times) found new on it. */
  newItems(id: number, since: string, until: string): NewItem[] {
    return [
      ...(this.s.newPages.all(id, since, until) as string[]).map((url) => ({ kind: 'page' as const, url })),
      ...(this.s.newExternal.all(id, since, until) as string[]).map((url) => ({ kind: 'external' as const, url })),
    ];
  }

  /** When the page was last read or checked before watching (the crawl, a refresh): epoch ms, or null. */
  lastRead(id: number): number | null {
    const v = this.s.lastRead.get(id) as string | null;
    return v ? Date.parse(v) : null;
  }

  /** A check's new items, each once (an item stored already is ignored); how many were stored. Call inside the check's transaction. */
  storeItems(items: readonly StoredItem[]): number {
    let stored = 0;
    for (const it of items) {
      stored += this.s.item.run({ hub: it.hub, kind: it.kind, url: it.url, group: it.group, found: it.found, from: it.from, to: it.to, point: it.point, source: it.source }).changes;
    }
    return stored;
  }

  /** A check's log row and the hub's times. Call inside the check's transaction, after storeItems. */
  logCheck(c: CheckRow): void {
    this.s.check.run({
      hub: c.hub, at: c.at, action: c.action, httpStatus: c.httpStatus, newItems: c.newItems, nextCheck: c.nextCheck, schedule: c.schedule,
      etag: c.validators.etag, lastModified: c.validators.lastModified,
    });
    this.s.setHub.run({ hub: c.hub, at: c.at, next: c.nextCheck });
  }

  /** The validators of the hub's last watch answer, or undefined when the watch has none. */
  validators(hub: number): Validators | undefined {
    return this.s.validators.get(hub) as Validators | undefined;
  }

  /** The hub's last `limit` checks, oldest first (the Poisson estimate's history). */
  history(hub: number, limit = 500): Check[] {
    return (this.s.history.all(hub, limit) as { at: number; found: number }[]).map((r) => ({ at: r.at, found: r.found === 1 }));
  }

  /** A group key's items that appeared (could have appeared) after `after`. */
  groupItems(group: string, after: number): { hub: number; from: number; to: number; point: number | null }[] {
    return this.s.groupItems.all(group, after) as { hub: number; from: number; to: number; point: number | null }[];
  }

  /** Items per group key found after `after`. */
  groupCounts(after: number): Map<string, number> {
    return new Map((this.s.groupCounts.all(after) as { group: string; n: number }[]).map((r) => [r.group, r.n]));
  }

  /** Watched group keys, when watching each began, and their hubs. */
  groups(): { group: string; since: number | null; hubs: number }[] {
    return this.s.groups.all() as { group: string; since: number | null; hubs: number }[];
  }

  /** Pages that yielded new links on re-checks and are not hubs yet (nor removed ones). */
  refreshHubs(sites: number[] | null): number[] {
    return this.s.refreshHubs.all({ sites: sites === null ? null : JSON.stringify(sites) }) as number[];
  }
}
