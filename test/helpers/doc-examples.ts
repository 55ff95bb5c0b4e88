// Runs the `sh` examples of a docs page as a reader would type them, in order, in one folder, on
// the fixture web (see test/docs.test.ts for the rules: URL mapping, smaller budgets and waits,
// the fixture server as proxy, the documented exit codes).
import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './cli.js';
import { codeBlocks, lineComment, shellSteps, shLines } from './shell-words.js';

export interface ExampleRun {
  root: Command;
  /** the checkout: npm and npx lines run there, `node dist/…` names its files */
  checkout: string;
  /** the page's folder: every command runs in it */
  dir: string;
  /** a word of the docs as it is run here: real sites' URLs → fixture hosts, a postgres:// URL → a test database */
  local(word: string): string;
  /** the fixture server, given as --proxy to every command that takes one */
  proxy: string;
  /** simple commands (their words joined by spaces) not run, with why */
  notRun: ReadonlyMap<string, string>;
  /** the first `beebot crawl` is stopped by Ctrl-C (SIGINT) after its first page, as the README's tour says */
  ctrlCFirstCrawl?: boolean;
}

export interface Ran {
  /** `line N: the command as run` */
  at: string;
  code: number | null;
  expected: number;
  /** what is wrong: the exit code, silence, a file said to be written missing, --json output that does not parse */
  problems: string[];
}

/** Budgets this many times smaller: the fixture web has some 230 pages, the docs' crawls thousands. */
export const BUDGET_DIVISOR = 50;
/** `--for` / `--until` waits of hours become this. */
export const SHORT_WAIT = '2s';
const WRITTEN = /^[\w.-]+\.(csv|jsonl|gexf|graphml|html|json|xml)$/;
const COMMAND_TIMEOUT_MS = 90_000;

/** Runs every `sh` line of a page; one entry per command run (background ones included). */
export async function runExamples(text: string, o: ExampleRun): Promise<Ran[]> {
  const ran: Ran[] = [];
  const env: Record<string, string> = {};
  const jobs: Promise<void>[] = [];
  let crawls = 0;

  const exec = async (w: string[], n: number, expected: number): Promise<void> => {
    const own: Record<string, string> = {};
    while (w.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(w[0]!)) {
      const [k, ...v] = w[0]!.split('=');
      own[k!] = o.local(v.join('='));
      w = w.slice(1);
    }
    const [prog, ...rest] = w;
    if (o.notRun.has(w.join(' '))) return;
    if (prog === 'export') {
      for (const a of rest) {
        const [k, ...v] = a.split('=');
        env[k!] = o.local(v.join('='));
      }
      return;
    }
    // another machine is this one
    if (prog === 'ssh') {
      for (const s of shellSteps(rest[rest.length - 1] ?? '')) await exec(s.words, n, expected);
      return;
    }
    let argv: string[];
    let cwd = o.dir;
    let stopAfterFirstPage = false;
    if (prog === 'beebot' || (prog === 'node' && rest[0] === 'bin/beebot.js')) {
      const args = beebotArgs(o, (prog === 'beebot' ? rest : rest.slice(1)).map(o.local));
      if (args[0] === 'crawl' && !args.includes('--refresh') && crawls++ === 0 && o.ctrlCFirstCrawl) stopAfterFirstPage = true;
      argv = [process.execPath, BIN, ...args];
    } else if (prog === 'node' && /^dist\/scripts\//.test(rest[0] ?? '')) argv = [process.execPath, join(o.checkout, rest[0]!), ...rest.slice(1).map(o.local)];
    else if (prog === 'npm' || prog === 'npx') {
      argv = [prog, ...rest];
      cwd = o.checkout;
    } else throw new Error(`line ${n}: no way to run '${w.join(' ')}' here: teach test/helpers/doc-examples.ts, or list it as not run in test/docs.test.ts`);

    const before = new Set(argv.filter((a) => WRITTEN.test(a) && existsSync(join(cwd, a))));
    const r = await spawnRun(argv, cwd, { ...env, ...own }, stopAfterFirstPage);
    const want = stopAfterFirstPage ? 130 : expected;
    const problems: string[] = [];
    if (r.code !== want) problems.push(`exit ${r.code}, expected ${want}`);
    if (r.out.trim() === '') problems.push('printed nothing');
    for (const f of argv.filter((a) => WRITTEN.test(a) && !before.has(a))) {
      if (!existsSync(join(cwd, f)) || statSync(join(cwd, f)).size === 0) problems.push(`${f} not written`);
    }
    if (argv.includes('--json') && !parsesAsJson(r.stdout)) problems.push('--json output does not parse');
    ran.push({ at: `line ${n}: ${argv.slice(argv[1] === BIN ? 2 : 0).join(' ')}`, code: r.code, expected: want, problems: problems.map((p) => `${p}\n${r.out.slice(-1500)}`) });
  };

  for (const block of codeBlocks(text).filter((b) => b.lang === 'sh')) {
    for (const { n, text: line } of shLines(block)) {
      // `# … exit 1 …` in a line's comment: the exit code the doc promises
      const expected = Number(/\bexit (\d+)\b/.exec(lineComment(line))?.[1] ?? 0);
      let chain: Promise<void> = Promise.resolve();
      for (const step of shellSteps(line)) {
        chain = chain.then(() => exec(step.words, n, expected));
        if (step.then === '&') {
          jobs.push(chain);
          chain = Promise.resolve();
        } else if (step.then === '|') throw new Error(`line ${n}: a pipe is not run here: ${line}`);
      }
      await chain;
    }
  }
  await Promise.all(jobs);
  return ran;
}

/** A `beebot` command's arguments as run on the fixture web: budgets and waits smaller, the fixture server as proxy, no delay. */
function beebotArgs(o: ExampleRun, args: string[]): string[] {
  const cmd = commandFor(o.root, args);
  const out = [...args];
  out.forEach((a, i) => {
    if (a === '--budget' && /^\d+$/.test(out[i + 1] ?? '')) out[i + 1] = String(Math.max(1, Math.round(Number(out[i + 1]) / BUDGET_DIVISOR)));
    if ((a === '--for' || a === '--until') && /^\d+[smhdw]$/.test(out[i + 1] ?? '')) out[i + 1] = SHORT_WAIT;
  });
  const takes = (f: string) => cmd?.options.some((x) => x.long === f) ?? false;
  if (takes('--proxy')) out.push('--proxy', o.proxy);
  if (takes('--delay')) out.push('--delay', '0');
  return out;
}

/** The command (or subcommand) a `beebot` argument list runs. */
function commandFor(root: Command, args: string[]): Command | undefined {
  let cmd: Command | undefined;
  let i = 0;
  while (args[i] === '--db') i += 2;
  for (let c: Command | undefined = root; c !== undefined; i++) {
    c = c.commands.find((x) => x.name() === args[i]);
    if (c !== undefined) cmd = c;
  }
  return cmd;
}

/** One JSON document, or JSON lines. */
function parsesAsJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    try {
      for (const l of s.split('\n').filter((x) => x.trim() !== '')) JSON.parse(l);
      return true;
    } catch {
      return false;
    }
  }
}

function spawnRun(argv: string[], cwd: string, extra: Record<string, string>, stopAfterFirstPage: boolean): Promise<{ code: number | null; stdout: string; out: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    // what this test runs under is no part of a reader's shell
    for (const k of Object.keys(env)) if (k === 'BEEBOT_DB' || k.startsWith('VITEST') || k === 'NODE_ENV') delete env[k];
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let out = '';
    const timer = setTimeout(() => {
      out += `\n(killed: still running after ${COMMAND_TIMEOUT_MS / 1000} s)`;
      child.kill('SIGKILL');
    }, COMMAND_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      out += d;
    });
    let sent = false;
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      // piped, a crawl writes one tab-separated line per page on stderr
      if (stopAfterFirstPage && !sent && d.includes('\t')) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, out });
    });
  });
}
