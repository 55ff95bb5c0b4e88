import { parse as parseCsv } from 'csv-parse/sync';
import { appearance } from './appearance.js';
import type { NewItem, StoredItem } from './watch-store.js';

/**
 * `beebot watch import`: past checks of hubs and the items they found, from a CSV file (RFC 4180,
 * a header row), turned into the watch's own rows (pure: text and lookups in, rows or the bad
 * lines out). The learned schedule needs a week of history; this is how a history kept elsewhere,
 * or made up for a test, reaches it without waiting a week on the real clock.
 *
 * Columns (by header name, any order; `item`, `kind`, `published` may be left out):
 *   hub         the hub's URL: a page of the crawl (any spelling with the same key)
 *   checked_at  when the hub was checked: ISO 8601 with a time and a zone (2026-01-05T09:00:00Z)
 *   item        a link first seen on the hub at that check; empty: the check found nothing new
 *   kind        page (a page of the hub's site) or external; required with an item
 *   published   the time the hub showed next to the item (ISO 8601), optional
 * One row per item; a check that found several items has several rows with the same hub and time.
 * Each item appeared in (the hub's previous check, this check], as a live watch records it
 * (appearance.ts), so an item needs an earlier check of its hub, and a hub's imported checks come
 * after the checks already recorded for it.
 */

export const HISTORY_COLUMNS = ['hub', 'checked_at', 'item', 'kind', 'published'] as const;
const REQUIRED = ['hub', 'checked_at'];

export interface ImportHub {
  id: number;
  group: string;
  /** its last recorded check (epoch ms), or null */
  lastCheck: number | null;
}

export interface ImportedCheck {
  hub: number;
  at: number;
  /** the hub's next check: its next imported one, else this one (due at once) */
  next: number;
  items: StoredItem[];
}

export type ImportResult = { ok: true; checks: ImportedCheck[]; hubs: number[] } | { ok: false; errors: string[] };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i;

function time(v: string): number | null {
  if (!ISO.test(v)) return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

function httpUrl(v: string): boolean {
  try {
    return /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
}

/**
 * Read the CSV text. `hubOf` finds the hub for a URL (undefined: not a page of the crawl);
 * `now`: no check may lie after it. Any bad row refuses the whole file.
 */
export function readHistory(text: string, hubOf: (url: string) => ImportHub | undefined, now: number): ImportResult {
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    parsed = parseCsv(text, { skip_empty_lines: true, trim: true, info: true, bom: true, relax_column_count: true }) as never;
  } catch (err) {
    return { ok: false, errors: [`not valid CSV: ${(err as Error).message}`] };
  }
  const header = (parsed[0]?.record ?? []).map((c) => c.toLowerCase());
  const unknown = header.filter((c) => !(HISTORY_COLUMNS as readonly string[]).includes(c));
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (header.length === 0 || unknown.length || missing.length || new Set(header).size !== header.length) {
    return { ok: false, errors: [`the header row must name the columns ${HISTORY_COLUMNS.join(', ')} (hub and checked_at required, each once)${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}${missing.length ? `; missing: ${missing.join(', ')}` : ''}`] };
  }
  const records = parsed.slice(1).map(({ record, info }) => ({ fields: record.length, record: Object.fromEntries(header.map((h, i) => [h, record[i] ?? ''])), info }));

  const errors: string[] = [];
  interface Row { line: number; hub: ImportHub; at: number; item: (NewItem & { published: number | null }) | null }
  const rows: Row[] = [];
  const hubs = new Map<string, ImportHub | undefined>();
  for (const { record: r, info, fields } of records) {
    const line = info.lines;
    const bad = (why: string) => void errors.push(`line ${line}: ${why}`);
    if (fields !== header.length) {
      bad(`${fields} fields, the header row has ${header.length}`);
      continue;
    }
    const hubUrl = r.hub ?? '';
    if (!hubs.has(hubUrl)) hubs.set(hubUrl, httpUrl(hubUrl) ? hubOf(hubUrl) : undefined);
    const hub = hubs.get(hubUrl);
    if (!hub) {
      bad(httpUrl(hubUrl) ? `hub '${hubUrl}' is not a page of this crawl` : `hub '${hubUrl}' is not an http(s) URL`);
      continue;
    }
    const at = time(r.checked_at ?? '');
    if (at === null) {
      bad(`checked_at '${r.checked_at ?? ''}' is not an ISO 8601 time with a zone (e.g. 2026-01-05T09:00:00Z)`);
      continue;
    }
    if (at > now) {
      bad(`checked_at ${r.checked_at} is in the future`);
      continue;
    }
    const [item, kind, pub] = [r.item ?? '', r.kind ?? '', r.published ?? ''];
    if (item === '') {
      if (kind !== '' || pub !== '') bad('kind and published need an item');
      else rows.push({ line, hub, at, item: null });
      continue;
    }
    if (!httpUrl(item)) {
      bad(`item '${item}' is not an http(s) URL`);
      continue;
    }
    if (kind !== 'page' && kind !== 'external') {
      bad(`kind must be page or external, got '${kind}'`);
      continue;
    }
    const published = pub === '' ? null : time(pub);
    if (published === null && pub !== '') {
      bad(`published '${pub}' is not an ISO 8601 time with a zone`);
      continue;
    }
    rows.push({ line, hub, at, item: { kind, url: item, published } });
  }

  // Per hub, in time order: one check per distinct time, its items appearing since the check before.
  const byHub = new Map<number, Row[]>();
  for (const r of rows) {
    const list = byHub.get(r.hub.id);
    if (list) list.push(r);
    else byHub.set(r.hub.id, [r]);
  }
  const checks: ImportedCheck[] = [];
  for (const [, hubRows] of byHub) {
    hubRows.sort((a, b) => a.at - b.at || a.line - b.line);
    const hub = hubRows[0]!.hub;
    const seen = new Map<string, number>();
    let prev = hub.lastCheck;
    let cur: ImportedCheck | null = null;
    const hubChecks: ImportedCheck[] = [];
    for (const r of hubRows) {
      if (hub.lastCheck !== null && r.at <= hub.lastCheck) {
        errors.push(`line ${r.line}: the hub's checks already recorded run to ${new Date(hub.lastCheck).toISOString()}; imported ones must come after`);
        continue;
      }
      if (cur === null || cur.at !== r.at) {
        if (cur !== null) prev = cur.at;
        cur = { hub: hub.id, at: r.at, next: r.at, items: [] };
        hubChecks.push(cur);
      }
      if (r.item === null) continue;
      if (prev === null) {
        errors.push(`line ${r.line}: an item needs an earlier check of its hub (a hub's first check only sees what was there)`);
        continue;
      }
      const key = `${r.item.kind} ${r.item.url}`;
      const dup = seen.get(key);
      if (dup !== undefined) {
        errors.push(`line ${r.line}: the item was already found on this hub (line ${dup})`);
        continue;
      }
      seen.set(key, r.line);
      cur.items.push({ kind: r.item.kind, url: r.item.url, hub: hub.id, group: hub.group, found: r.at, ...appearance(prev, r.at, r.item.published) });
    }
    hubChecks.forEach((c, i) => (c.next = hubChecks[i + 1]?.at ?? c.at));
    checks.push(...hubChecks);
  }
  const lineOf = (e: string) => Number(/^line (\d+)/.exec(e)?.[1] ?? 0);
  if (errors.length) return { ok: false, errors: errors.sort((a, b) => lineOf(a) - lineOf(b)) };
  if (checks.length === 0) return { ok: false, errors: ['no checks in the file (only a header row?)'] };
  checks.sort((a, b) => a.at - b.at || a.hub - b.hub);
  return { ok: true, checks, hubs: [...byHub.keys()] };
}
