import { Command } from 'commander';
import { readStatus } from '../store/status.js';
import { isTty, printJson, withDb } from './context.js';
import { formatTable } from './table.js';

export function statusCommand(): Command {
  return new Command('status')
    .description('per-site progress: state, pages fetched, frontier left, deepest level, link counts')
    .option('--json', 'print JSON (fields documented in the README)')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await withDb(cmd, (db) => {
        const st = readStatus(db);
        if (opts.json) return printJson(st);
        const rows = st.sites.map((s) => [
          s.id, s.short ?? new URL(s.url).hostname, s.state + (s.reason ? ` (${s.reason})` : ''), s.pages_fetched, s.frontier,
          s.deepest_level, s.internal, s.external, s.bad,
        ]);
        const t = st.totals;
        rows.push(['', 'total', '', t.pages_fetched, t.frontier, '', t.internal, t.external, t.bad]);
        process.stdout.write(formatTable(['id', 'site', 'state', 'fetched', 'frontier', 'deepest', 'internal', 'external', 'bad'], rows, isTty()));
        process.stdout.write(`budget: ${st.budget_used} of ${st.budget ?? 'none (until every site is exhausted)'} pages used; max level ${st.max_level}\n`);
      });
    });
}
