import { domainToUnicode } from 'node:url';
import type { Db } from '../db/db.js';
import { companionHosts, type CompanionHost } from '../store/hosts.js';
import { readSettings, settingKeys, formatSetting, VERSION } from '../store/settings.js';
import { badLinkKinds, barelyCrawledLines, readStatus, type SiteStatus, type Status } from '../store/status.js';
import { pullPeriod, pullsBySite, rewardsInCrawlOrder, siteNames } from '../store/report-rows.js';
import { ChoiceTimeline, HarvestCurve, type Curve } from './harvest.js';

export interface ReportSite extends SiteStatus {
  label: string;
  name: string | null;
  harvest: Curve;
}

export interface ReportHost extends CompanionHost {
  /** the host for people: IDN in Unicode */
  display: string;
}

/** Everything the HTML report shows, as plain data (render-html.ts turns it into the page). */
export interface ReportData {
  title: string;
  database: string;
  generatedAt: string;
  version: string;
  sites: ReportSite[];
  totals: Status['totals'];
  /** what the harvest curves count: the crawl's reward mode */
  reward: Status['reward'];
  /** the focused crawl's topic, null when not focused */
  focus: Status['focus'];
  budget: number | null;
  period: { first: string | null; last: string | null };
  /** cumulative external links against pages fetched, whole database */
  harvest: Curve;
  /** pulls per site in equal runs of the crawl, rows in `sites` order */
  choices: { bins: number; pulls: number; counts: number[][] };
  topHosts: ReportHost[];
  /** links not followed, by kind, most first */
  badKinds: [string, number][];
  settings: [string, string][];
  /** a line for each site the scheduler barely crawled while pages were queued (schedule/sites/barely-crawled.ts) */
  barely: string[];
}

/**
 * Read what the report needs. The pull log is streamed once in crawl order (curves and the choice
 * timeline are built as it goes, thinned to a fixed size) and host counts are aggregated by SQLite,
 * so the cost in memory does not grow with the crawl.
 */
export function readReport(db: Db, o: { title: string; database: string; top: number; now: Date }): ReportData {
  const status = readStatus(db);
  const names = siteNames(db);
  const perSitePulls = pullsBySite(db);
  const totalPulls = [...perSitePulls.values()].reduce((a, b) => a + b, 0);

  const total = new HarvestCurve(totalPulls);
  const curves = new Map(status.sites.map((s) => [s.id, new HarvestCurve(perSitePulls.get(s.id) ?? 0)]));
  const choices = new ChoiceTimeline(new Map(status.sites.map((s, i) => [s.id, i])), totalPulls);
  for (const [siteId, reward] of rewardsInCrawlOrder(db)) {
    total.add(reward);
    curves.get(siteId)?.add(reward);
    choices.add(siteId);
  }
  const period = pullPeriod(db);
  const settings = readSettings(db);

  return {
    title: o.title,
    database: o.database,
    generatedAt: o.now.toISOString(),
    version: VERSION,
    barely: barelyCrawledLines(status, settings.policy),
    sites: status.sites.map((s) => ({
      ...s,
      label: s.short ?? new URL(s.url).hostname,
      name: names.get(s.id) ?? null,
      harvest: curves.get(s.id)!.curve,
    })),
    totals: status.totals,
    reward: status.reward,
    focus: status.focus,
    budget: status.budget,
    period,
    harvest: total.curve,
    choices: { bins: choices.bins, pulls: totalPulls, counts: choices.counts },
    topHosts: companionHosts(db, { by: 'host', siteId: null, minSites: 0, limit: o.top }).map((h) => ({ ...h, display: domainToUnicode(h.name) || h.name })),
    badKinds: badLinkKinds(db),
    settings: settingKeys.map((k) => [k, formatSetting(settings[k])]),
  };
}
