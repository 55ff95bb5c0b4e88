import { Command } from 'commander';
import type { RewardMode } from '../schedule/sites/reward.js';
import type { HostPoliteness } from '../store/politeness.js';
import { barelyCrawledLines, readStatus, siteCoverage, type SiteStatus, type Status } from '../store/status.js';
import type { SiteCoverage } from '../schedule/sites/barely-crawled.js';
import { clockTime } from '../net/waiting.js';
import { readSettings } from '../store/settings.js';
import type { Db } from '../db/db.js';
import { isTty, printJson, withReadDb } from './context.js';
import { screen } from '../markup/terminal-text.js';
import { counted, htmlOfFetched } from '../markup/counted.js';
import { formatTable } from './table.js';

export function statusCommand(): Command {
  return new Command('status')
    .description('per-site progress: state, pages fetched, frontier left, deepest level, link counts')
    .option('--json', 'print JSON (fields documented in docs/commands.md)')
    .option('--wide', 'on a terminal: every column (internal, files, skipped, reward, politeness) and state reasons in the table')
    .action(async (opts: { json?: boolean; wide?: boolean }, cmd: Command) => {
      await withReadDb(cmd, (db) => {
        const st = readStatus(db);
        if (opts.json) return printJson(st);
        const tty = isTty();
        // Piped output (TSV for scripts) and --wide keep every column; a terminal gets what fits.
        const wide = opts.wide === true || !tty;
        // A focused crawl adds its relevant pages and harvest rate (relevant / fetched) after 'fetched'.
        const harvest = (r: number | null, h: number | null) => (st.focus ? [r, h === null ? '' : `${(100 * h).toFixed(1)}%`] : []);
        const rows = st.sites.map((s) => [
          s.id, s.short ?? new URL(s.url).hostname, s.state + (wide && s.reason ? ` (${s.reason})` : ''), s.pages_fetched, ...harvest(s.relevant, s.harvest_rate),
          s.frontier, s.deepest_level, s.internal, s.files, s.skipped, s.external_urls, s.external_hosts, s.external, s.bad, s.reward_sum, politeness(s.politeness),
        ]);
        const t = st.totals;
        rows.push(['', 'total', '', t.pages_fetched, ...harvest(t.relevant, t.harvest_rate), t.frontier, '', t.internal, t.files, t.skipped, t.external_urls, t.external_hosts, t.external, t.bad, '', '']);
        const header = [
          'id', 'site', 'state', 'fetched', ...(st.focus ? ['relevant', 'harvest'] : []), 'frontier', 'deepest', 'internal', 'files', 'skipped',
          'ext URLs', 'ext hosts', 'ext pairs', 'not followed', 'reward', 'politeness',
        ];
        const width = process.stdout.columns || 80;
        if (wide) process.stdout.write(formatTable(header, rows, tty));
        else {
          const keep = header.map((h) => !NARROW_LEFT_OUT.has(h));
          const pick = <T,>(r: T[]) => r.filter((_c, i) => keep[i]);
          process.stdout.write(formatTable(pick(header), rows.map(pick), tty, { width, whole: ['state'] }));
          for (const s of st.sites) if (s.reason) process.stdout.write(fit(screen(`${s.short ?? new URL(s.url).hostname}: ${s.state}: ${s.reason}`), width) + '\n');
        }
        for (const s of st.sites) {
          const problems = s.sitemaps?.problems ?? [];
          const shown = problems.slice(0, SITEMAP_PROBLEMS_SHOWN).concat(problems.length > SITEMAP_PROBLEMS_SHOWN ? [`and ${problems.length - SITEMAP_PROBLEMS_SHOWN} more (--json)`] : []);
          for (const p of shown) process.stdout.write((tty ? (l: string) => fit(screen(l), width) : (l: string) => l)(`${s.short ?? new URL(s.url).hostname}: sitemap not read: ${p}`) + '\n');
        }
        for (const l of waitingLines(st.sites)) process.stdout.write((tty ? (x: string) => fit(screen(x), width) : (x: string) => x)(l) + '\n');
        for (const l of barelyCrawledOf(db, st)) process.stdout.write((tty ? (x: string) => fit(screen(x), width) : (x: string) => x)(l) + '\n');
        const budget = st.budget === null ? `none, ${st.budget_used} pages used` : `${st.budget_used} of ${st.budget} pages used`;
        process.stdout.write(`budget: ${budget}; max level ${st.max_level}\n`);
        if (st.check_certificate === 'no') process.stdout.write('certificates: not checked (check-certificate no): any TLS certificate is accepted\n');
        process.stdout.write(`the scheduler counts ${REWARD_WORDS[st.reward]} (--reward ${st.reward})\n`);
        if (st.focus) process.stdout.write(`focus: "${st.focus.topic.slice(0, 80)}"; relevant: cosine similarity >= ${st.focus.threshold}\n`);
        if (st.totals.pages_fetched > 0) process.stdout.write(`fetched: ${htmlOfFetched(st.totals.html_pages, st.totals.pages_fetched)}\n`);
        process.stdout.write('ext URLs: distinct external URLs; ext hosts: outside hosts\n');
        process.stdout.write('ext pairs: (page, external URL) pairs; totals: distinct over all sites\n');
        if (wide) process.stdout.write('not followed: links to no web page (mailto:, javascript:, empty, …): beebot links bad lists them by kind\n');
        if (!wide) process.stdout.write(`--wide: also ${[...NARROW_LEFT_OUT].join(', ')}\n`);
      });
    });
}

const SITEMAP_PROBLEMS_SHOWN = 3;

/** Sites shown a line each at most: a study of thousands of sites keeps a screen. */
const WAITING_SHOWN = 10;

/**
 * A line per site whose queued pages wait for a host that failed: the host, what it last said
 * (its robots.txt, its failures), the soonest retry. The next crawl asks them again.
 */
function waitingLines(sites: SiteStatus[]): string[] {
  const waiting = sites.filter((s) => s.waiting.length > 0);
  const now = Date.now();
  const lines = waiting.slice(0, WAITING_SHOWN).flatMap((s) =>
    s.waiting.slice(0, 2).map((w) => {
      const h = s.politeness.find((p) => p.host === new URL(w.origin).host);
      const said = h?.robots && /for now/.test(h.robots) ? h.robots : h && h.failures > 0 ? `${counted(h.failures, 'failure')} in a row` : 'failed for now';
      return `${s.short ?? new URL(s.url).hostname}: ${counted(w.pages, 'queued page')} ${w.pages === 1 ? 'waits' : 'wait'} for ${w.origin} (${said}; next try ${clockTime(w.retry_at, now)} or the next crawl)`;
    }),
  );
  if (waiting.length > WAITING_SHOWN) lines.push(`and ${counted(waiting.length - WAITING_SHOWN, 'more site')} with pages waiting for a host (--json: waiting)`);
  return lines;
}

/** A line for each site the scheduler barely crawled while pages were queued, at most `shown`. */
export const barelyCrawledOf = (db: Db, st: Status | SiteCoverage[] = siteCoverage(db), shown = Infinity): string[] => barelyCrawledLines(st, readSettings(db).policy, shown);

/** What each reward mode counts, in the words of the columns above. */
const REWARD_WORDS: Record<RewardMode, string> = { urls: 'external URLs new to each site', hosts: 'outside hosts new to each site', pairs: 'new (page, external URL) pairs' };

/** Columns a terminal table leaves out unless --wide: the rest fits 80 columns. */
const NARROW_LEFT_OUT = new Set(['deepest', 'internal', 'files', 'skipped', 'not followed', 'reward', 'politeness']);

const fit = (line: string, width: number) => (line.length <= width ? line : line.slice(0, Math.max(0, width - 1)) + '…');

/** 'delay 250ms; crawl-delay 60s clamped to 30s; backing off (3 failures); robots: 2 groups' in one cell. */
function politeness(hosts: HostPoliteness[]): string {
  return hosts
    .map((h) => {
      const parts = [`${h.host} delay ${h.delay_ms}ms`];
      if (h.crawl_delay_ms !== null) parts.push(`crawl-delay ${h.crawl_delay_ms}ms asked${h.clamped ? `, clamped to ${h.delay_ms}ms` : ''}`);
      if (h.failures > 0) parts.push(`backing off: ${h.failures} failures`);
      if (h.paused_until && Date.parse(h.paused_until) > Date.now()) parts.push(`paused until ${h.paused_until}`);
      if (h.robots) parts.push(`robots: ${h.robots}`);
      return parts.join(', ');
    })
    .join('; ');
}
