import { basename } from 'node:path';
import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { readReport } from '../report/report-data.js';
import { renderReport } from '../report/render-html.js';
import { dbPath, withReadDb } from './context.js';
import { counted } from '../markup/counted.js';
import { quietOption, toldWritten, writeWhole } from './write-file.js';

export function reportCommand(): Command {
  return new Command('report')
    .description(
      "write one self-contained HTML page (nothing fetched when viewed): per-site table, harvest curves, which site the policy chose, top external hosts, crawl settings; '-' writes to stdout",
    )
    .argument('<file>', 'a .html file, or -')
    .option('--title <text>', 'page title', 'beebot crawl report')
    .option('--top <n>', 'external hosts listed', '25')
    .addOption(quietOption())
    .action(async (file: string, flags: { title: string; top: string; quiet?: boolean }, cmd: Command) => {
      if (file !== '-' && !/\.html?$/i.test(file)) throw new UsageError(`the report is HTML: use a .html name or '-', got '${file}'`);
      if (!/^\d+$/.test(flags.top) || Number(flags.top) < 1) throw new UsageError(`--top must be an integer >= 1, got '${flags.top}'`);
      const data = await withReadDb(cmd, (db) => readReport(db, { title: flags.title, database: basename(dbPath(cmd)), top: Number(flags.top), now: new Date() }));
      const html = renderReport(data);
      if (file === '-') return void process.stdout.write(html);
      // The page is small (its curves are thinned to a fixed size): write it whole.
      writeWhole(file, html);
      toldWritten(file, `the report of ${counted(data.sites.length, 'site')}`, flags.quiet);
    });
}
