import { domainToASCII } from 'node:url';
import { UsageError } from '../errors.js';

export type LinkKind = 'external' | 'internal' | 'bad';
export const linkKinds: readonly LinkKind[] = ['external', 'internal', 'bad'];

/**
 * Which links a user means (`links`, `links delete`, `export`). Every field is optional; null = no
 * condition. Values are already checked and normalized (see parseLinkFilter).
 */
export interface LinkFilter {
  siteId: number | null;
  /** lowercase ASCII host: matches the link's host and its subdomains */
  host: string | null;
  /** case-insensitive substring of the URL (and the anchor text of external links) */
  grep: string | null;
  /** level of the page the link was found on (internal: the page's own level) */
  level: number | null;
  /** ISO time (UTC): links first seen at or after it */
  since: string | null;
  /** the links gone from their page (a refresh found them missing, or the page 404/410) instead of the links there now */
  gone: boolean;
}

export const noFilter: LinkFilter = { siteId: null, host: null, grep: null, level: null, since: null, gone: false };

export interface FilterFlags {
  host?: string;
  grep?: string;
  level?: string;
  since?: string;
  newSince?: string;
  gone?: boolean;
}

/** Check and normalize what the user typed (the site is resolved against the database elsewhere). */
export function parseLinkFilter(flags: FilterFlags, kind: LinkKind | null, now: Date): Omit<LinkFilter, 'siteId'> {
  let host: string | null = null;
  if (flags.host !== undefined) {
    if (kind === 'bad') throw new UsageError('--host does not apply to bad links (they have no usable URL); use --grep');
    const ascii = domainToASCII(flags.host.trim().toLowerCase().replace(/\.$/, ''));
    if (!ascii) throw new UsageError(`--host wants a host name like example.org, got '${flags.host}'`);
    host = ascii;
  }
  let level: number | null = null;
  if (flags.level !== undefined) {
    if (!/^\d+$/.test(flags.level.trim())) throw new UsageError(`--level must be an integer >= 0, got '${flags.level}'`);
    level = Number(flags.level);
  }
  if (flags.grep !== undefined && flags.grep === '') throw new UsageError('--grep must not be empty');
  return {
    host,
    grep: flags.grep ?? null,
    level,
    since: flags.newSince !== undefined ? parseSince(flags.newSince, now) : flags.since === undefined ? null : parseSince(flags.since, now),
    gone: flags.gone ?? false,
  };
}

const UNIT_MS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };

/**
 * `--since`: a relative age (`90s`, `10m`, `2h`, `1d`, `1w`) or an ISO date / date-time. A time
 * without an offset is local time, as a person reading a clock means it (a bare date = local midnight).
 * Returns the instant as ISO UTC, the form found_at is stored in, so strings compare in time order.
 */
export function parseSince(text: string, now: Date): string {
  const t = text.trim();
  const rel = /^(\d+)\s*([smhdw])$/i.exec(t);
  if (rel) return new Date(now.getTime() - Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()]!).toISOString();
  const iso = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(t);
  if (iso) {
    const [, date, time, zone] = iso;
    const [y, m, d] = date!.split('-').map(Number) as [number, number, number];
    // Date.parse rolls 2024-02-31 over to March: reject dates that don't exist instead.
    const real = new Date(Date.UTC(y, m - 1, d));
    const ms = Date.parse(`${date}T${time ?? '00:00'}${zone ? zone.toUpperCase() : ''}`);
    if (!Number.isNaN(ms) && real.getUTCMonth() === m - 1 && real.getUTCDate() === d) return new Date(ms).toISOString();
  }
  throw new UsageError(`--since wants an age like 10m, 2h, 1d or an ISO time like 2024-05-01 or 2024-05-01T14:30, got '${text}'`);
}
