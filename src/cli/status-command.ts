import { Command } from 'commander';
import type { HostPoliteness } from '../store/politeness.js';
import { readStatus } from '../store/status.js';
import { isTty, printJson, withReadDb } from './context.js';
import { formatTable } from './table.js';

export function statusCommand(): Command {
  return new Command('status')
    .description('per-site progress: state, pages fetched, frontier left, deepest level, link counts')
    .option('--json', 'print JSON (fields documented in the README)')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await withReadDb(cmd, (db) => {
        const st = readStatus(db);
        if (opts.json) return printJson(st);
        // A focused crawl adds its relevant pages and harvest rate (relevant / fetched) after 'fetched'.
        const harvest = (r: number | null, h: number | null) => (st.focus ? [r, h === null ? '' : `${(100 * h).toFixed(1)}%`] : []);
        const rows = st.sites.map((s) => [
          s.id, s.short ?? new URL(s.url).hostname, s.state + (s.reason ? ` (${s.reason})` : ''), s.pages_fetched, ...harvest(s.relevant, s.harvest_rate),
          s.frontier, s.deepest_level, s.internal, s.files, s.skipped, s.external_urls, s.external_hosts, s.external, s.bad, s.reward_sum, politeness(s.politeness),
        ]);
        const t = st.totals;
        rows.push(['', 'total', '', t.pages_fetched, ...harvest(t.relevant, t.harvest_rate), t.frontier, '', t.internal, t.files, t.skipped, t.external_urls, t.external_hosts, t.external, t.bad, '', '']);
        const header = [
          'id', 'site', 'state', 'fetched', ...(st.focus ? ['relevant', 'harvest'] : []), 'frontier', 'deepest', 'internal', 'files', 'skipped',
          'ext URLs', 'ext hosts', 'ext pairs', 'bad', 'reward', 'politeness',
        ];
        process.stdout.write(formatTable(header, rows, isTty()));
        process.stdout.write(`budget: ${st.budget_used} of ${st.budget ?? 'none (until every site is exhausted)'} pages used; max level ${st.max_level}; reward: ${st.reward}\n`);
        if (st.focus) process.stdout.write(`focus: "${st.focus.topic.slice(0, 80)}"; relevant: cosine similarity >= ${st.focus.threshold}\n`);
        process.stdout.write('ext URLs, ext hosts: distinct (the total row: over all sites); ext pairs: (page, URL) pairs\n');
      });
    });
}

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
