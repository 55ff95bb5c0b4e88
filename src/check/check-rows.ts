import type { InvalidTarget } from '../map/invalid-links.js';
import type { CachedCheck, SiteExternal } from '../store/url-checks.js';
import { isBroken } from './check-url.js';

/**
 * The site's errors as `beebot check` reports them: one row per (broken target, linking page).
 * `internal`: a fetched page of the site answered 4xx/5xx or failed; `external`: an outside URL
 * did — the article counts it as an error of the site, not as one of its external links.
 */
export const CHECK_COLUMNS = ['kind', 'url', 'status', 'error', 'linked_from', 'anchor', 'checked_at'] as const;

export interface CheckRow {
  kind: 'internal' | 'external';
  url: string;
  status: number | null;
  error: string | null;
  linked_from: string;
  anchor: string;
  checked_at: string | null;
}

export function checkRows(internal: readonly InvalidTarget[], external: readonly { ext: SiteExternal; check: CachedCheck }[]): CheckRow[] {
  const rows: CheckRow[] = [];
  for (const t of internal) {
    for (const f of t.linkedFrom) {
      rows.push({ kind: 'internal', url: t.page.url, status: t.page.httpStatus, error: t.page.error, linked_from: f.page.url, anchor: f.anchor, checked_at: null });
    }
  }
  for (const { ext, check } of external) {
    if (!isBroken(check)) continue;
    for (const f of ext.linkedFrom) {
      rows.push({ kind: 'external', url: ext.url, status: check.status, error: check.error, linked_from: f.url, anchor: f.anchor, checked_at: check.checkedAt });
    }
  }
  return rows;
}

export const rowCells = (r: CheckRow): (string | number | null)[] => CHECK_COLUMNS.map((c) => r[c]);
