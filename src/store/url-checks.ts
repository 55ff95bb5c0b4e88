import type { Db } from '../db/db.js';
import { onConflictReplace, replaceInto } from '../db/dialect.js';

/** What checking one external URL found. */
export interface UrlCheck {
  url: string;
  /** HEAD, or GET when HEAD failed or was refused */
  method: 'HEAD' | 'GET';
  /** the final HTTP status after redirects; null after a network error */
  status: number | null;
  finalUrl: string | null;
  error: string | null;
}

/** One distinct external URL of a site, with every page linking it. */
export interface SiteExternal {
  key: string;
  url: string;
  linkedFrom: { url: string; anchor: string }[];
}

export interface CachedCheck extends UrlCheck {
  key: string;
  checkedAt: string;
}

/** The site's distinct external URLs (by key, first spelling), in the order first stored. */
export function siteExternals(db: Db, siteId: number): SiteExternal[] {
  const rows = db
    .prepare(
      `SELECT e.key, e.url, p.url AS page, e.anchor FROM external_links e JOIN pages p ON p.id = e.page_id
        WHERE e.site_id = ? AND e.gone_at IS NULL ORDER BY e.id`,
    )
    .all(siteId) as { key: string; url: string; page: string; anchor: string }[];
  const by = new Map<string, SiteExternal>();
  for (const r of rows) {
    let x = by.get(r.key);
    if (!x) by.set(r.key, (x = { key: r.key, url: r.url, linkedFrom: [] }));
    x.linkedFrom.push({ url: r.page, anchor: r.anchor });
  }
  return [...by.values()];
}

/** Checks stored earlier, by key (the url_checks table). */
export function cachedChecks(db: Db, keys: readonly string[]): Map<string, CachedCheck> {
  const get = db.prepare(
    `SELECT key, url, method, status, final_url AS "finalUrl", error, checked_at AS "checkedAt" FROM url_checks WHERE key = ?`,
  );
  const out = new Map<string, CachedCheck>();
  for (const k of keys) {
    const r = get.get(k) as CachedCheck | undefined;
    if (r) out.set(k, r);
  }
  return out;
}

export function saveCheck(db: Db, c: CachedCheck): void {
  db.prepare(
    `${replaceInto(db)} INTO url_checks (key, url, method, status, final_url, error, checked_at)
     VALUES (@key, @url, @method, @status, @finalUrl, @error, @checkedAt)${onConflictReplace(db, 'key', ['url', 'method', 'status', 'final_url', 'error', 'checked_at'])}`,
  ).run(c);
}
