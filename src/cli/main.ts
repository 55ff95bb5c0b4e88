import { Command, CommanderError, Option } from 'commander';
import { BeebotError } from '../errors.js';
import { VERSION } from '../store/settings.js';
import { checkCommand } from './check-command.js';
import { configCommand } from './config-command.js';
import { crawlCommand } from './crawl-command.js';
import { dbCommand } from './db-command.js';
import { exportCommand } from './export-command.js';
import { hostsCommand } from './hosts-command.js';
import { linksCommand } from './links-command.js';
import { mapCommand } from './map-command.js';
import { paramsCommand } from './params-command.js';
import { refreshCommand } from './refresh-command.js';
import { reportCommand } from './report-command.js';
import { searchCommand } from './search-command.js';
import { seedsCommand } from './seeds-command.js';
import { simulateCommand } from './simulate-command.js';
import { statusCommand } from './status-command.js';
import { traceCommand } from './trace-command.js';
import { watchCommand } from './watch-command.js';

/** Build the whole command tree. Each command: read arguments, call the core, print. */
export function program(): Command {
  const p = new Command('beebot')
    .description('Adaptive crawler that collects the external links of a set of websites')
    .version(VERSION)
    .addOption(new Option('--db <file|url>', 'database: a SQLite file, or postgres://user@host:port/dbname (one crawl shared by every worker on it)').env('BEEBOT_DB').default('./beebot.db'))
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const make of [
    seedsCommand, configCommand, crawlCommand, refreshCommand, watchCommand, statusCommand, linksCommand, hostsCommand, exportCommand, reportCommand, mapCommand, checkCommand,
    searchCommand, paramsCommand, traceCommand, simulateCommand, dbCommand,
  ]) {
    p.addCommand(make());
  }
  // Subcommands inherit: commander errors become exceptions, mapped to exit codes below.
  const override = (c: Command): void => {
    c.exitOverride();
    c.commands.forEach(override);
  };
  override(p);
  return p;
}

/**
 * A failed write to standard output (bin/beebot.js listens for it): a closed pipe (`beebot export - |
 * head`) is not a failure and ends quietly with 0; any other error (a full disk, an I/O error) is
 * one line and exit 1. It ends the process at once: whatever would follow has nowhere to go.
 */
export function stdoutFailed(err: NodeJS.ErrnoException): never {
  if (err.code === 'EPIPE') process.exit(0);
  const line = err.code === 'ENOSPC' ? 'disk full while writing standard output' : `cannot write standard output: ${err.code ?? err.message}`;
  try {
    process.stderr.write(`beebot: ${line}\n`);
  } catch {
    /* stderr is gone too: the exit code still says it */
  }
  process.exit(1);
}

/** The one place errors become exit codes: 0 ok, 1 failure, 2 usage. */
export async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version print and exit 0; every other commander error is a usage error
      // whose message commander has already printed.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof BeebotError) {
      process.stderr.write(`beebot: ${err.message}\n`);
      return err.exitCode;
    }
    const e = err as Error;
    process.stderr.write(`beebot: unexpected error: ${e?.message ?? String(err)}\n`);
    if (process.env.BEEBOT_DEBUG) process.stderr.write(`${e?.stack}\n`);
    return 1;
  }
}
