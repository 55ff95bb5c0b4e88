import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Db } from '../db/db.js';
import { parseLinkFilter, type FilterFlags, type LinkFilter, type LinkKind } from '../store/link-filter.js';
import { resolveSiteRef } from '../store/sites.js';

/** Rows shown by a table on a terminal unless --limit says otherwise (piped output and --json get all). */
export const TABLE_ROWS = 50;

/** The filter options shared by `links <kind>`, `links delete` and `export`. */
export function addFilterOptions(c: Command): Command {
  return c
    .option('--site <id>', 'only links of this site (id, URL, host or short name)')
    .option('--host <host>', 'only links to this host or its subdomains (external, internal)')
    .option('--grep <text>', 'only links whose URL (or anchor text) contains this, ignoring case')
    .option('--level <n>', 'only links found on pages of this level (internal: pages of this level)')
    .option('--new-since <time>', 'only links first seen since: an age (30s, 10m, 2h, 1d, 1w) or an ISO time (2024-05-01, 2024-05-01T14:30)')
    .option('--since <time>', 'the same as --new-since')
    .option('--gone', 'the links gone from their page (found missing by beebot refresh, or the page answered 404/410) instead of the links there now');
}

/** Resolve --site and check the other filters; usage errors before anything is read. */
export function readFilter(db: Db, flags: FilterFlags & { site?: string }, kind: LinkKind | null): LinkFilter {
  const rest = parseLinkFilter(flags, kind, new Date());
  return { siteId: siteOption(db, flags.site), ...rest };
}

/** A --site value (id, URL, host or short name) as a site id; null when not given. */
export function siteOption(db: Db, ref: string | undefined): number | null {
  if (ref === undefined) return null;
  const s = resolveSiteRef(db, ref);
  if (!s) throw new UsageError(`no such site: '${ref}'`);
  return s.id;
}

export function parseLimit(v: string | undefined): number | null {
  if (v === undefined) return null;
  if (!/^\d+$/.test(v.trim()) || Number(v) < 1) throw new UsageError(`--limit must be an integer >= 1, got '${v}'`);
  return Number(v);
}
