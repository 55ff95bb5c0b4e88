import { barelyCrawled, barelyCrawledLines as linesOf, type SiteCoverage } from '../schedule/sites/barely-crawled.js';
import { siteIdentity, type SiteRule } from '../url/scope.js';
import type { Db } from '../db/db.js';
import { readPoliteness, type HostPoliteness } from './politeness.js';
import { readSettings } from './settings.js';
import { distinctExternal, distinctExternalBySite } from './distinct.js';
import type { RewardMode } from '../schedule/sites/reward.js';
import { listSites, ruleOf, type Site } from './sites.js';
import { queuedLeft } from './frontier.js';

export type SiteState = 'pending' | 'crawling' | 'exhausted' | 'capped' | 'not-available';

/** One site's line in `beebot status` (and its stable JSON form, documented in the README). */
export interface SiteStatus {
  id: number;
  short: string | null;
  url: string;
  group: string | null;
  state: SiteState;
  reason: string | null;
  pages_fetched: number;
  /** of pages_fetched, those that are HTML pages (the others: not HTML, errors, redirects) */
  html_pages: number;
  frontier: number;
  /** of the frontier, the pages that failed for now or whose host failed, by origin, most first, with the soonest retry (epoch ms) */
  waiting: { origin: string; pages: number; retry_at: number }[];
  beyond_max_level: number;
  deepest_level: number | null;
  internal: number;
  /** internal links to files that are not pages (skip-extensions): stored, never fetched */
  files: number;
  /** internal links of a dead-end class (dead-end-after): stored, never fetched */
  skipped: number;
  /** internal links that break their script's URL parameter rules (beebot params): stored, never fetched */
  ignored: number;
  /** external (page, URL) pairs: rows of the external links table */
  external: number;
  /** distinct external URLs (by key) and distinct outside hosts the site links to */
  external_urls: number;
  external_hosts: number;
  bad: number;
  /** topic-focused crawls: fetched pages relevant to the topic, and their share of the pages fetched (null otherwise) */
  relevant: number | null;
  harvest_rate: number | null;
  /** the sum of its pulls' rewards under the database's reward mode */
  reward_sum: number;
  /** Politeness per host of the site: delay in force, robots.txt, back-off. */
  politeness: HostPoliteness[];
  /**
   * Its sitemaps, once read (null before): when (null: a file failed for now, the next crawl reads
   * them again), the files read, the site's pages that name a sitemap, and the files that could
   * not be read or are not sitemaps, each as 'url: why'
   */
  sitemaps: { read_at: string | null; files: number; pages: number; problems: string[] } | null;
}

export interface Status {
  sites: SiteStatus[];
  /** external_urls and external_hosts here are distinct over the whole database, not sums */
  totals: {
    pages_fetched: number; html_pages: number; frontier: number; internal: number; files: number; skipped: number; ignored: number; external: number;
    external_urls: number; external_hosts: number; bad: number; relevant: number | null; harvest_rate: number | null;
  };
  /** the topic of a focused crawl (its text as given) and the relevance threshold; null when not focused */
  focus: { topic: string; threshold: number } | null;
  /** what a pull's reward counts: urls | hosts | pairs */
  reward: RewardMode;
  budget: number | null;
  budget_used: number;
  max_level: number;
  /** 'no': the crawl accepts any TLS certificate (crawl --no-check-certificate) */
  check_certificate: 'yes' | 'no';
}

/** Pages pulled (fetch log rows) in the whole store. */
/** Links not followed (bad links) by kind, most first: [reason, count], e.g. ['mailto', 2258]. */
export function badLinkKinds(db: Db): [string, number][] {
  const rows = db.prepare('SELECT reason, count(*) AS n FROM bad_links GROUP BY reason ORDER BY n DESC, reason').all() as { reason: string; n: number | string }[];
  return rows.map((r) => [r.reason, Number(r.n)]);
}

export function pullCount(db: Db): number {
  return Number(db.prepare('SELECT count(*) FROM fetches').pluck().get());
}

/** Fetched pages that are HTML pages (the rest of the pulls: not HTML, errors, redirects). */
export function htmlPageCount(db: Db): number {
  return Number(db.prepare("SELECT count(*) FROM pages WHERE status = 'done'").pluck().get());
}

export function readStatus(db: Db): Status {
  const settings = readSettings(db);
  const maxLevel = settings['max-level'];
  const countBy = (sql: string, ...args: unknown[]) =>
    new Map((db.prepare(sql).raw().all(...args) as [number, number][]).map(([id, n]) => [id, n]));
  // one pass over pages for both: a site's pages, and those a sitemap lists
  const pageCounts = db.prepare('SELECT site_id, count(*), count(sitemap) FROM pages GROUP BY site_id').raw().all() as [number, number, number][];
  const internal = new Map(pageCounts.map(([id, n]) => [id, n]));
  const fromSitemaps = new Map(pageCounts.map(([id, , n]) => [id, n]));
  const external = countBy('SELECT site_id, count(*) FROM external_links GROUP BY site_id');
  const bad = countBy('SELECT site_id, count(*) FROM bad_links GROUP BY site_id');
  const files = countBy("SELECT site_id, count(*) FROM pages WHERE status = 'file' GROUP BY site_id");
  const html = countBy("SELECT site_id, count(*) FROM pages WHERE status = 'done' GROUP BY site_id");
  const skipped = countBy("SELECT site_id, count(*) FROM pages WHERE status = 'skipped' GROUP BY site_id");
  const ignored = countBy("SELECT site_id, count(*) FROM pages WHERE status = 'ignored' GROUP BY site_id");
  const distinct = distinctExternalBySite(db);
  const frontier = countBy("SELECT site_id, count(*) FROM pages WHERE status = 'queued' AND level <= ? GROUP BY site_id", maxLevel);
  const focused = settings.focus !== null;
  // Relevance is stored with the pulled page (schedule/link-order.ts); a page scored before the focus changed keeps its score.
  const relevant = countBy(
    'SELECT f.site_id, count(*) FROM fetches f JOIN pages p ON p.id = f.page_id WHERE p.relevance >= ? GROUP BY f.site_id',
    settings['focus-threshold'],
  );
  const beyond = countBy("SELECT site_id, count(*) FROM pages WHERE status = 'queued' AND level > ? GROUP BY site_id", maxLevel);

  const hostsOf = hostsBySite(readPoliteness(db));
  const left = queuedLeft(db, maxLevel);
  const sites = listSites(db).map((s): SiteStatus => {
    const queued = frontier.get(s.id) ?? 0;
    const state = siteState(s, queued, settings['max-pages-per-site']);
    const rule = ruleOf(s, settings);
    return {
      id: s.id,
      short: s.short,
      url: s.url,
      group: s.group,
      state,
      reason: s.unavailable,
      pages_fetched: s.pulls,
      html_pages: html.get(s.id) ?? 0,
      frontier: s.unavailable ? 0 : queued,
      waiting: [...(left.get(s.id)?.waiting ?? [])].map(([origin, w]) => ({ origin, pages: w.pages, retry_at: w.earliest })).sort((a, b) => b.pages - a.pages),
      beyond_max_level: beyond.get(s.id) ?? 0,
      deepest_level: s.deepest,
      internal: internal.get(s.id) ?? 0,
      files: files.get(s.id) ?? 0,
      skipped: skipped.get(s.id) ?? 0,
      ignored: ignored.get(s.id) ?? 0,
      external: external.get(s.id) ?? 0,
      external_urls: distinct.get(s.id)?.urls ?? 0,
      external_hosts: distinct.get(s.id)?.hosts ?? 0,
      bad: bad.get(s.id) ?? 0,
      relevant: focused ? (relevant.get(s.id) ?? 0) : null,
      harvest_rate: focused ? rate(relevant.get(s.id) ?? 0, s.pulls) : null,
      reward_sum: s.rewardSum,
      politeness: hostsOf(rule),
      // read before beebot kept what they gave (no sitemap_files): unknown, so none; read_at null:
      // a file failed for now, and the next crawl reads them again
      sitemaps: s.sitemapFiles === null ? null : {
        read_at: s.sitemapsRead, files: s.sitemapFiles, pages: fromSitemaps.get(s.id) ?? 0,
        problems: s.sitemapProblems === null ? [] : (JSON.parse(s.sitemapProblems) as string[]),
      },
    };
  });
  const sum = (k: keyof SiteStatus) => sites.reduce((a, s) => a + (s[k] as number), 0);
  const all = distinctExternal(db);
  const used = db.prepare('SELECT count(*) FROM fetches').pluck().get() as number;
  return {
    sites,
    totals: {
      pages_fetched: sum('pages_fetched'), html_pages: sum('html_pages'), frontier: sum('frontier'), internal: sum('internal'), files: sum('files'), skipped: sum('skipped'), ignored: sum('ignored'),
      external: sum('external'), external_urls: all.urls, external_hosts: all.hosts, bad: sum('bad'),
      relevant: focused ? sum('relevant') : null,
      harvest_rate: focused ? rate(sum('relevant'), sum('pages_fetched')) : null,
    },
    focus: focused ? { topic: settings.focus!, threshold: settings['focus-threshold'] } : null,
    reward: settings.reward,
    budget: settings.budget,
    budget_used: used,
    max_level: maxLevel,
    check_certificate: settings['check-certificate'],
  };
}

/** A site's state in `status`, from its queued pages up to max-level and the max-pages-per-site setting. */
function siteState(s: Site, queued: number, cap: number | null): SiteState {
  if (s.unavailable) return 'not-available';
  return s.pulls === 0 ? 'pending' : queued === 0 ? 'exhausted' : cap !== null && s.pulls >= cap ? 'capped' : 'crawling';
}

/** relevant / fetched, 4 decimals; null before any page. */
const rate = (relevant: number, fetched: number): number | null => (fetched === 0 ? null : Math.round((relevant / fetched) * 10_000) / 10_000);

/**
 * The hosts in a site's bounds, in their order (hostInSite), found by the site's identity rather
 * than by asking each host of the crawl: a study of 30,000 sites has as many hosts.
 */
function hostsBySite(hosts: readonly HostPoliteness[]): (rule: SiteRule) => HostPoliteness[] {
  const by = { host: new Map<string, HostPoliteness[]>(), domain: new Map<string, HostPoliteness[]>() };
  for (const h of hosts) {
    const name = hostnameOf(h.host);
    for (const scope of ['host', 'domain'] as const) {
      const id = siteIdentity(name, scope);
      const list = by[scope].get(id);
      if (list) list.push(h);
      else by[scope].set(id, [h]);
    }
  }
  return (rule) => [...(by[rule.scope === 'domain' ? 'domain' : 'host'].get(rule.identity) ?? [])];
}

/** 'host:port' → 'host' ('[::1]:80' → '[::1]'). */
function hostnameOf(host: string): string {
  return new URL(`http://${host}/`).hostname;
}

/** A line for each site the scheduler barely crawled while pages were queued, at most `shown` (schedule/sites/barely-crawled.ts). */
export function barelyCrawledLines(st: Status | SiteCoverage[], policy: string, shown = Infinity): string[] {
  return linesOf(barelyCrawled(Array.isArray(st) ? st : st.sites.map(coverageOf)), policy, shown);
}

/**
 * Every site as barely-crawled reads it, as `status` has it but from two queries: the crawl's
 * summary read the whole status for these lines (half a second at 30,000 sites).
 */
export function siteCoverage(db: Db): SiteCoverage[] {
  const settings = readSettings(db);
  const frontier = new Map(
    db.prepare("SELECT site_id, count(*) FROM pages WHERE status = 'queued' AND level <= ? GROUP BY site_id").raw().all(settings['max-level']) as [number, number][],
  );
  return listSites(db).map((s) => {
    const queued = Number(frontier.get(s.id) ?? 0);
    return coverageOf({ short: s.short, url: s.url, pages_fetched: s.pulls, frontier: s.unavailable ? 0 : queued, state: siteState(s, queued, settings['max-pages-per-site']) });
  });
}

const coverageOf = (s: Pick<SiteStatus, 'short' | 'url' | 'pages_fetched' | 'frontier' | 'state'>): SiteCoverage => ({
  name: s.short ?? new URL(s.url).hostname, fetched: s.pages_fetched, frontier: s.frontier, open: s.state === 'crawling' || s.state === 'pending',
});
