import { fetchUrl, urlKey, type NormalizeMode } from '../url/url.js';
import { boundsKey, domainOf, siteRule, sitesByDomain, type Scope, type SiteRule } from '../url/scope.js';
import { SiteOverlaps } from '../url/site-overlaps.js';
import { siteNamed } from '../url/site-ref.js';
import { UsageError } from '../errors.js';
import { parseUrlPattern, type UrlPattern } from '../url/url-pattern.js';
import type { SessionIds } from '../url/session-ids.js';
import type { RewardMode } from '../schedule/sites/reward.js';
import type { Db } from '../db/db.js';
import { returning } from '../db/dialect.js';
import { givePagesToOwners, type PagesGiven } from '../db/page-owners.js';
import { fingerprint } from '../url/key-hash.js';
import type { SiteScope } from '../page/link-fate.js';
import type { Settings } from './settings.js';

export interface SeedInput {
  url: URL;
  name?: string | null;
  short?: string | null;
  group?: string | null;
  /** null/absent: the scope setting */
  scope?: Scope | null;
  include?: readonly string[];
  exclude?: readonly string[];
  /** null/absent: the sitemaps setting */
  sitemaps?: 'yes' | 'no' | null;
}

export interface Site {
  id: number;
  url: string;
  name: string | null;
  short: string | null;
  group: string | null;
  unavailable: string | null;
  /** pages in a row whose fetch failed for now on the site's host, each counted once (give-up-after) */
  failures: number;
  pulls: number;
  rewardSum: number;
  rewardMax: number;
  deepest: number | null;
  /** the site's own scope; null: the scope setting */
  scope: Scope | null;
  /** JSON arrays of patterns as typed; null: none */
  include: string | null;
  exclude: string | null;
  sitemaps: 'yes' | 'no' | null;
  sitemapsRead: string | null;
  /** when its sitemaps were read: the files read, and the ones that could not be (JSON array of 'url: why') */
  sitemapFiles: number | null;
  sitemapProblems: string | null;
}

const siteColumns = `id, url, name, short, grp AS "group", unavailable, failures, pulls,
  reward_sum AS "rewardSum", reward_max AS "rewardMax", deepest, scope, include, exclude, sitemaps, sitemaps_read AS "sitemapsRead",
  sitemap_files AS "sitemapFiles", sitemap_problems AS "sitemapProblems"`;

export function listSites(db: Db): Site[] {
  return db.prepare(`SELECT ${siteColumns} FROM sites ORDER BY id`).all() as Site[];
}

/** A site's bounds and patterns (src/url/scope.ts): its own scope, else the scope setting. */
export function ruleOf(site: Pick<Site, 'url' | 'scope' | 'include' | 'exclude'>, s: Pick<Settings, 'scope'>): SiteRule {
  return siteRule(new URL(site.url), site.scope ?? s.scope, { include: patterns(site.include), exclude: patterns(site.exclude) });
}

/** Patterns as the sites table keeps them: a JSON array of what was typed; null: none. */
const patternsJson = (typed: readonly string[] | undefined): string | null => (typed?.length ? JSON.stringify(typed) : null);

function patterns(json: string | null): UrlPattern[] {
  if (json === null) return [];
  // stored only after parseUrlPattern accepted them (seeds add)
  return (JSON.parse(json) as string[]).map((p) => parseUrlPattern(p) as UrlPattern);
}

/** Every site's rule, by id, in id order (ownerOf's tie-break); `sites`: listSites' rows when the caller has them. */
export function siteRules(db: Db, s: Pick<Settings, 'scope'>, sites: readonly Site[] = listSites(db)): { id: number; site: Site; rule: SiteRule }[] {
  return sites.map((site) => ({ id: site.id, site, rule: ruleOf(site, s) }));
}

/** Each site's scope (its bounds, the sites nested in them, the URL normalization and session ids), by site id. */
export function siteScopes(db: Db, s: Pick<Settings, 'scope' | 'normalize' | 'session-ids'>, sites?: readonly Site[]): Map<number, SiteScope> {
  const all = siteRules(db, s, sites);
  const overlaps = new SiteOverlaps(all);
  return new Map(all.map((x) => [x.id, { rule: x.rule, nested: overlaps.of(x.rule).holding.map((o) => o.rule), mode: s.normalize, sessionIds: s['session-ids'] }]));
}

/** How many sites the store has. */
export function siteCount(db: Db): number {
  return db.prepare('SELECT count(*) FROM sites').pluck().get() as number;
}

/** The page stored under this URL key, in the first site (by id) that has one. */
export function pageWithKey(db: Db, key: string): { id: number; url: string } | undefined {
  const byKey = db.prepare('SELECT id, url FROM pages WHERE site_id = ? AND key = ?');
  for (const s of listSites(db)) {
    const p = byKey.get(s.id, key) as { id: number; url: string } | undefined;
    if (p) return p;
  }
  return undefined;
}

export function getSite(db: Db, id: number): Site | undefined {
  return db.prepare(`SELECT ${siteColumns} FROM sites WHERE id = ?`).get(id) as Site | undefined;
}

/** The existing site a seed would duplicate (the same bounds: scope, host or domain, prefix), if any. */
export function findDuplicate<T extends { url: string; rule: SiteRule }>(sites: readonly T[], rule: SiteRule): T | undefined {
  const key = boundsKey(rule);
  return sites.find((s) => boundsKey(s.rule) === key);
}

/** Insert seeds and their start pages (level 0) in one transaction; returns the new ids. */
export function insertSites(db: Db, seeds: readonly SeedInput[], mode: NormalizeMode, sessionIds?: SessionIds): number[] {
  const site = db.prepare(
    `INSERT INTO sites (url, name, short, grp, added_at, scope, include, exclude, sitemaps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)${returning(db, 'id')}`,
  );
  const page = db.prepare(`INSERT INTO pages (site_id, key, dir, fp, url, level) VALUES (?, ?, ?, ?, ?, 0)`);
  return db.transaction(() =>
    seeds.map((s) => {
      const id = Number(
        site.run(
          fetchUrl(s.url), s.name ?? null, s.short ?? null, s.group ?? null, new Date().toISOString(), s.scope ?? null,
          patternsJson(s.include), patternsJson(s.exclude), s.sitemaps ?? null,
        )
          .lastInsertRowid,
      );
      const key = urlKey(s.url, mode, sessionIds);
      const { dir, fp } = fingerprint(key);
      page.run(id, key, dir, fp, fetchUrl(s.url));
      return id;
    }),
  ).immediate(); // see deleteLinks: a crawl may be writing
}

/** A site with its bounds, as the sites' overlaps are worked out. */
export interface PlacedSite {
  id: number;
  url: string;
  rule: SiteRule;
}

/**
 * Seeds about to be added, beside the sites already there: their rules, every site grouped by
 * registrable domain (sitesByDomain), and which new seeds meet another site (share a group).
 * The sites are read once: a file of 50,000 seeds spent seconds reading them again.
 */
export interface SitePlan {
  seeds: readonly SeedInput[];
  before: PlacedSite[];
  fresh: { url: string; rule: SiteRule }[];
  /** indexes into seeds of those whose domain holds another site, old or new */
  meeting: number[];
  /** those of them inside another site: adding them takes pages over */
  inside: boolean;
}

/** What adding these seeds will meet (SitePlan), before anything is written. */
export function planSites(db: Db, seeds: readonly SeedInput[], s: Pick<Settings, 'scope'>): SitePlan {
  const before = siteRules(db, s).map((x) => ({ id: x.id, url: x.site.url, rule: x.rule }));
  const fresh = seeds.map((x) => ({ url: fetchUrl(x.url), rule: ruleOf({ url: x.url.href, scope: x.scope ?? null, include: patternsJson(x.include), exclude: patternsJson(x.exclude) }, s) }));
  const all = [...before, ...fresh];
  const groups = sitesByDomain<{ rule: SiteRule }>(all);
  const meeting = fresh.flatMap((x, i) => (groups.get(domainOf(x.rule))!.length > 1 ? [i] : []));
  const overlaps = new SiteOverlaps<{ rule: SiteRule }>(all);
  const inside = meeting.some((i) => overlaps.of(fresh[i]!.rule).within.length > 0);
  return { seeds, before, fresh, meeting, inside };
}

/**
 * Add the planned sites (insertSites) and give those inside others the pages the others had
 * stored in their bounds, in one transaction: a site added inside another after a crawl owns its
 * pages as if it had been there from the start (src/db/page-owners.ts). Returns the new ids, the
 * pages given, and every site (the new ones with their ids) for what is said about them.
 */
export function addSites(db: Db, plan: SitePlan, s: Pick<Settings, 'normalize' | 'session-ids'>): { ids: number[]; given: PagesGiven[]; sites: PlacedSite[] } {
  return db.transaction(() => {
    const ids = insertSites(db, plan.seeds, s.normalize, s['session-ids']);
    const sites = [...plan.before, ...plan.fresh.map((x, i) => ({ ...x, id: ids[i]! }))];
    const given = plan.inside ? givePagesToOwners(db, sites, new Set(plan.meeting.map((i) => ids[i]!))) : [];
    return { ids, given, sites };
  }).immediate(); // see deleteLinks: a crawl may be writing
}

/** Remove a site and, by cascade, every link and fetch recorded for it. */
export function deleteSite(db: Db, id: number): void {
  db.transaction(() => {
    // found_on points across pages of the same site only; clear it first so the cascade
    // doesn't walk SET NULL updates page by page.
    db.prepare('UPDATE pages SET found_on = NULL WHERE site_id = ?').run(id);
    // edges have no foreign keys; a site's edges start and end at its own pages.
    db.prepare('DELETE FROM edges WHERE src IN (SELECT id FROM pages WHERE site_id = ?)').run(id);
    db.prepare('DELETE FROM sites WHERE id = ?').run(id);
  }).immediate(); // see deleteLinks: a crawl may be writing
}

/**
 * The site a user names (url/site-ref.ts: id, short name, start URL, or its host when one site is
 * on it); undefined when none is. A host several sites share is a usage error naming them.
 */
export function resolveSiteRef(db: Db, ref: string): Site | undefined {
  const r = siteNamed(listSites(db), ref);
  if ('site' in r) return r.site;
  if ('several' in r) throw new UsageError(`'${ref}' is the host of ${r.several.length} sites (${r.several.map((s) => `${s.id}: ${s.url}`).join(', ')}): name one by its id, short name or start URL`);
  return undefined;
}

/**
 * Set every site's reward sum and maximum from its pulls under `mode` (pulls stored by an older
 * beebot have only the pairs count). The crawl calls it first, so a database whose reward mode changed
 * continues with statistics of the new mode.
 */
export function recountRewards(db: Db, mode: RewardMode): void {
  const r = `coalesce(reward_${mode}, reward)`;
  db.prepare(
    `UPDATE sites SET reward_sum = coalesce(f.s, 0), reward_max = coalesce(f.m, 0)
       FROM (SELECT id, (SELECT sum(${r}) FROM fetches WHERE site_id = sites.id) AS s,
                        (SELECT max(${r}) FROM fetches WHERE site_id = sites.id) AS m FROM sites) f
      WHERE f.id = sites.id`,
  ).run();
}

/**
 * Open Not Available sites again: a failed start page is queued afresh and the site's failures
 * forgotten. `ids`: those sites (seeds retry); null: the ones only "not in this run" — their start
 * page failed for now and waits in the frontier, or (older databases) their host failed too often.
 * Returns the sites reopened.
 */
export function reopenSites(db: Db, ids: readonly number[] | null): number[] {
  const due = ids
    ? listSites(db).filter((x) => x.unavailable !== null && ids.includes(x.id)).map((x) => x.id)
    : (db.prepare(
        `SELECT id FROM sites s WHERE unavailable IS NOT NULL AND (unavailable LIKE 'gave up:%'
           OR EXISTS (SELECT 1 FROM pages p WHERE p.site_id = s.id AND p.level = 0 AND p.status = 'queued')) ORDER BY id`,
      ).pluck().all() as number[]);
  if (due.length === 0) return [];
  const start = db.prepare(
    `UPDATE pages SET status = 'queued', attempts = 0, first_failed_at = NULL, retry_at = NULL
      WHERE site_id = ? AND level = 0 AND status IN ('error', 'not-html', 'redirect')`,
  );
  const site = db.prepare('UPDATE sites SET unavailable = NULL, unavailable_at = NULL, failures = 0 WHERE id = ?');
  db.transaction(() => {
    for (const id of due) {
      start.run(id);
      site.run(id);
    }
  }).immediate(); // see deleteLinks: a crawl may be writing
  return due;
}
