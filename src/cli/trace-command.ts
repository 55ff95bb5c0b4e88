import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { readTrace } from '../store/trace.js';
import { withReadDb } from './context.js';
import { counted } from '../markup/counted.js';
import { quietOption, toldWritten, writeWhole } from './write-file.js';

export function traceCommand(): Command {
  const trace = new Command('trace').description('the record of every page fetched: site, page, what it earned, time');
  trace
    .command('export <file>')
    .description("write each site's reward sequence in crawl order, and every page fetched, as JSON ('-' = stdout)")
    .addOption(quietOption())
    .action(async (file: string, opts: { quiet?: boolean }, cmd: Command) => {
      if (file !== '-' && !/\.json$/i.test(file)) throw new UsageError(`trace files are JSON: use a .json name or '-', got '${file}'`);
      await withReadDb(cmd, (db) => {
        const trace = readTrace(db);
        const text = JSON.stringify(trace) + '\n';
        if (file === '-') return void process.stdout.write(text);
        writeWhole(file, text);
        toldWritten(file, `the trace of ${counted(trace.pulls.length, 'page')}`, opts.quiet);
      });
    });
  return trace;
}
