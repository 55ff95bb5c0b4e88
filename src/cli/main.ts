import { Command, CommanderError, Option } from 'commander';
import { BeebotError } from '../errors.js';
import { VERSION } from '../store/settings.js';

type Make = () => Command;

/**
 * Each command's module, loaded only when the command runs (or help lists them all): a crawl
 * then carries no code of report, map, watch or search, about 6 MB of its resident memory.
 */
const COMMANDS: [string, () => Promise<Make>][] = [
  ['seeds', async () => (await import('./seeds-command.js')).seedsCommand],
  ['config', async () => (await import('./config-command.js')).configCommand],
  ['crawl', async () => (await import('./crawl-command.js')).crawlCommand],
  ['refresh', async () => (await import('./refresh-command.js')).refreshCommand],
  ['watch', async () => (await import('./watch-command.js')).watchCommand],
  ['status', async () => (await import('./status-command.js')).statusCommand],
  ['links', async () => (await import('./links-command.js')).linksCommand],
  ['hosts', async () => (await import('./hosts-command.js')).hostsCommand],
  ['export', async () => (await import('./export-command.js')).exportCommand],
  ['report', async () => (await import('./report-command.js')).reportCommand],
  ['map', async () => (await import('./map-command.js')).mapCommand],
  ['check', async () => (await import('./check-command.js')).checkCommand],
  ['search', async () => (await import('./search-command.js')).searchCommand],
  ['params', async () => (await import('./params-command.js')).paramsCommand],
  ['trace', async () => (await import('./trace-command.js')).traceCommand],
  ['simulate', async () => (await import('./simulate-command.js')).simulateCommand],
  ['db', async () => (await import('./db-command.js')).dbCommand],
];

/** The command named on the line (the first word past the global options), if it is one of ours. */
export function commandNamed(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--db') i++;
    else if (!a.startsWith('-')) return COMMANDS.some(([name]) => name === a) ? a : undefined;
  }
  return undefined;
}

/**
 * Build the command tree: only the named command when the line names one, else all of them
 * (help, version, a mistyped command). Each command: read arguments, call the core, print.
 */
export async function program(only?: string): Promise<Command> {
  const p = new Command('beebot')
    .description('Adaptive crawler that collects the external links of a set of websites')
    .version(VERSION)
    .addOption(new Option('--db <file|url>', 'database: a SQLite file, or postgres://user@host:port/dbname (one crawl shared by every worker on it)').env('BEEBOT_DB').default('./beebot.db'))
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const [name, load] of COMMANDS) {
    if (only === undefined || name === only) p.addCommand((await load())());
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
    await (await program(commandNamed(argv))).parseAsync(argv);
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
