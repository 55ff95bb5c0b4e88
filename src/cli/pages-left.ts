import type { CrawlSummary, SiteLeft } from '../crawl/run-report.js';
import { counted, grouped } from '../markup/counted.js';
import { clockTime } from '../net/waiting.js';

const n = grouped;

/** Sites shown a line each at most: the rest are counted (a study of thousands of sites keeps a screen-long summary). */
const SHOWN = 10;

/** Why a site's due pages were not fetched, in the summary's words. */
function dueWhy(s: CrawlSummary, x: SiteLeft): string {
  if (x.unavailable) return 'wait for the site to be available';
  if (x.capped) return 'beyond max-pages-per-site';
  if (s.reason === 'budget') return 'left by the budget';
  if (s.reason === 'interrupted') return 'left by the interruption';
  return 'not fetched in this run';
}

/** `4 wait for http://k.test (robots.txt HTTP 502; next try 14:32:10)` */
function hostWait(h: SiteLeft['hosts'][number], now: number): string {
  const next = h.nextRun ? 'in the next run' : `next try ${clockTime(h.earliest, now)}`;
  return `${n(h.pages)} ${h.pages === 1 ? 'waits' : 'wait'} for ${h.origin} (${h.cause}; ${next})`;
}

/** One site's pages left: `1,213 pages left: 1,209 left by the budget; 4 wait for k.test (…)`. */
function siteLine(s: CrawlSummary, x: SiteLeft, now: number): string {
  const parts: string[] = [];
  if (x.due > 0) parts.push(`${n(x.due)} ${dueWhy(s, x)}`);
  for (const h of x.hosts.slice(0, 3)) parts.push(hostWait(h, now));
  if (x.hosts.length > 3) parts.push(`and ${x.hosts.length - 3} more hosts`);
  if (x.beyondLevel > 0) parts.push(`${n(x.beyondLevel)} beyond max-level ${s.maxLevel}`);
  return `  site ${x.site}: ${counted(x.queued, 'page')} left: ${parts.join('; ')}`;
}

/**
 * Every queued page of every site, accounted for by why it was not fetched: a line per site whose
 * pages wait for a host (the host, the cause, the next try), then one line of totals. A site is
 * exhausted only when nothing of it is left queued.
 */
export function pagesLeftLines(s: CrawlSummary, now: number): string[] {
  const left = s.left.filter((x) => x.queued > 0);
  if (left.length === 0) return [];
  const sum = (f: (x: SiteLeft) => number) => left.reduce((n, x) => n + f(x), 0);
  const waiting = sum((x) => x.queued - x.due - x.beyondLevel);
  const hosts = new Set(left.flatMap((x) => x.hosts.map((h) => h.origin))).size;
  const shown = left.filter((x) => x.hosts.length > 0).sort((a, b) => b.queued - a.queued);
  const lines = shown.slice(0, SHOWN).map((x) => siteLine(s, x, now));
  if (shown.length > SHOWN) lines.push(`  and ${counted(shown.length - SHOWN, 'more site')} with pages waiting for a host (beebot status --json lists them all)`);
  const parts = [
    ...(sum((x) => x.due) > 0 ? [`${n(sum((x) => x.due))} due (${[...new Set(left.filter((x) => x.due > 0).map((x) => dueWhy(s, x)))].join(', ')})`] : []),
    ...(waiting > 0 ? [`${n(waiting)} waiting for ${counted(hosts, 'host')}`] : []),
    ...(sum((x) => x.beyondLevel) > 0 ? [`${n(sum((x) => x.beyondLevel))} beyond max-level ${s.maxLevel}`] : []),
  ];
  return [...lines, `left queued: ${counted(sum((x) => x.queued), 'page')} of ${counted(left.length, 'site')}: ${parts.join(', ')}`];
}
