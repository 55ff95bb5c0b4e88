// The docs cannot drift from the CLI. Every command line in the code blocks of README.md and
// docs/*.md is checked against the real command tree (the one `beebot --help` prints): in `sh`
// blocks each `beebot …` line must name a command (and subcommand) that exists, use only flags
// that command accepts, and give it the arguments it needs; `npm run X` must name a script of
// package.json, `node dist/scripts/X.js` a file of scripts/. In other blocks (usage synopses) a
// line starting with `beebot` must name a command, and its flags must belong to that command or
// its subcommands. The links between the pages must point at files and headings that exist.
//
// And every `sh` example RUNS, page by page, line by line in order, as a reader would type it:
// the README in a fresh folder (its tour's CSV saved as the file it imports), each docs page in a
// copy of the folder the README left (the tour's database and files), all on the bundled fixture
// web: the tour's sites' URLs mapped to the fixture's hosts, a postgres:// URL to a fresh database
// of a throwaway PostgreSQL cluster, budgets 50 times smaller, `--for`/`--until` waits of 2 s,
// every command that takes `--proxy` sent through the fixture server with `--delay 0`; `ssh host
// 'cmd'` runs cmd here, `&` in the background (awaited at the page's end), npm and npx in the
// checkout. The README's first crawl is stopped by Ctrl-C after its first page (exit 130), then
// resumed. Each command must exit 0, or the code its line's comment promises (`# … exit 1 …`), say
// something, write the files it names, and print JSON that parses with `--json`. What is not run
// is listed in NOT_RUN below, each with why, and must still be in its page.
import type { Command, Option } from 'commander';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSeeds } from '../fixtures/web.js';
import { program } from '../src/cli/main.js';
import { runExamples, type Ran } from './helpers/doc-examples.js';
import { beebot, tempDir } from './helpers/cli.js';
import { withFixtureWeb } from './helpers/fixture-run.js';
import { createDatabase, startPostgres, type PgCluster } from './helpers/postgres.js';
import { codeBlocks, shellSteps, shLines, simpleCommands, words } from './helpers/shell-words.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const SCRIPTS = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
/** Programs an `sh` example may run besides beebot, npm and node. */
const OTHER_PROGRAMS = new Set(['export', 'cd', 'cat', 'psql', 'createdb', 'createuser', 'sudo', 'apt-get', 'apt']);
const NPM_COMMANDS = new Set(['ci', 'install', 'test', 'link']);

/** The simple commands of the pages' `sh` blocks that are not run, by page, each with why. */
const NOT_RUN: Record<string, Record<string, string>> = {
  'README.md': {
    'npm ci': 'installs the dependencies: the checkout under test has them',
    'npm run demo': 'builds (rewriting dist/ under the tests that run beside this one), then runs dist/scripts/demo.js, which test/cli/demo.test.ts runs and checks',
    'npm test': 'the whole suite, this test included',
  },
  'docs/testing.md': {
    'npm test': 'the whole suite, this test included',
    'npm run build': 'rewrites dist/ under the tests that run beside this one; npm test builds first',
    'sudo apt-get install libpq-dev postgresql': 'installs system packages',
  },
};

function longFlags(cmd: Command): Set<string> {
  return new Set(cmd.options.flatMap((o: Option) => [o.long, o.short].filter((f): f is string => f !== undefined)));
}
const GLOBAL = new Set(['--db', '--help', '-h']);

function findSub(cmd: Command, name: string | undefined): Command | undefined {
  return name === undefined ? undefined : cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}
const hasAction = (cmd: Command) => (cmd as unknown as { _actionHandler: unknown })._actionHandler != null;

/**
 * What is wrong with one `beebot` command line (its words after `beebot`), or nothing. `strict`:
 * a real example (every flag its command's, enough arguments); else a synopsis (`a|b`, `[--x]`).
 */
export function checkBeebot(root: Command, args: string[], strict: boolean): string[] {
  const problems: string[] = [];
  let i = 0;
  while (args[i] === '--db') i += 2;
  let cmd = findSub(root, args[i]);
  if (cmd === undefined) return [`no command '${args[i] ?? ''}'`];
  const path = [cmd.name()];
  i++;
  for (;;) {
    const sub = findSub(cmd, args[i]);
    if (sub === undefined) break;
    cmd = sub;
    path.push(sub.name());
    i++;
  }
  if (cmd.commands.length > 0 && !hasAction(cmd)) {
    // a synopsis may list the subcommands as `add|remove`
    const alternatives = (args[i] ?? '').split('|');
    if (!strict && alternatives.every((a) => findSub(cmd!, a) !== undefined)) return problems;
    return [`'${path.join(' ')}' needs a subcommand (${cmd.commands.map((c) => c.name()).join(', ')}), got '${args[i] ?? ''}'`];
  }
  const options = [...cmd.options];
  const flags = longFlags(cmd);
  // A synopsis line may show the flags of several subcommands (`watch add <url> | list [--json]`).
  const lenient = strict ? new Set<string>() : new Set(cmd.commands.flatMap((c) => [...longFlags(c)]));
  const positional: string[] = [];
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!strict) {
      for (const m of a.matchAll(/(?<![\w-])(--?[a-zA-Z][\w-]*)/g)) {
        const f = m[1]!;
        if (!flags.has(f) && !GLOBAL.has(f) && !lenient.has(f)) problems.push(`'${path.join(' ')}' has no flag ${f}`);
      }
      continue;
    }
    if (a.startsWith('-') && a !== '-') {
      const f = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
      if (GLOBAL.has(f)) {
        if (f === '--db' && !a.includes('=')) i++;
        continue;
      }
      if (!flags.has(f)) {
        problems.push(`'${path.join(' ')}' has no flag ${f}`);
        continue;
      }
      const o = options.find((x) => x.long === f || x.short === f)!;
      if ((o.required || o.optional) && !a.includes('=')) i++; // its value
    } else positional.push(a);
  }
  if (strict) {
    const declared = cmd.registeredArguments;
    const needed = declared.filter((d) => d.required).length;
    const variadic = declared.some((d) => d.variadic);
    if (positional.length < needed) problems.push(`'${path.join(' ')}' needs ${needed} argument(s), got ${positional.length}`);
    if (!variadic && positional.length > declared.length) problems.push(`'${path.join(' ')}' takes ${declared.length} argument(s), got ${positional.length}: ${positional.join(' ')}`);
  }
  return problems;
}

/** A synopsis showing several subcommands (`watch add <url> | list [--json]`) as one line each. */
function synopsisLines(root: Command, text: string): string[] {
  const [first, ...rest] = text.split(' | ');
  const top = words(first!)[0];
  const parent = findSub(root, top);
  const lines = [first!];
  for (const seg of rest) {
    if (parent !== undefined && findSub(parent, words(seg)[0]) !== undefined) lines.push(`${top} ${seg}`);
    else lines[lines.length - 1] += ` | ${seg}`;
  }
  return lines;
}

/** What is wrong with the command lines of one page. */
export function checkPage(root: Command, text: string): string[] {
  const problems: string[] = [];
  for (const block of codeBlocks(text)) {
    if (block.lang === 'sh') {
      for (const { n, text: line } of shLines(block)) {
        const queue = simpleCommands(line);
        while (queue.length > 0) {
          let w = queue.shift()!;
          while (w.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(w[0]!)) w = w.slice(1); // VAR=value before a command
          if (w.length === 0) continue;
          const [prog, ...rest] = w;
          const at = `line ${n}: ${line.trim()}`;
          if (prog === 'beebot') problems.push(...checkBeebot(root, rest, true).map((p) => `${at}: ${p}`));
          else if (prog === 'node' && rest[0] === 'bin/beebot.js') problems.push(...checkBeebot(root, rest.slice(1), true).map((p) => `${at}: ${p}`));
          else if (prog === 'node') {
            const script = /^dist\/(scripts\/[\w-]+)\.js$/.exec(rest[0] ?? '');
            if (script === null || !existsSync(join(ROOT, `${script[1]}.ts`))) problems.push(`${at}: no such script ${rest[0] ?? ''}`);
          } else if (prog === 'npm') {
            if (rest[0] === 'run') {
              if (!SCRIPTS.includes(rest[1] ?? '')) problems.push(`${at}: package.json has no script '${rest[1] ?? ''}'`);
            } else if (!NPM_COMMANDS.has(rest[0] ?? '')) problems.push(`${at}: unexpected npm command '${rest[0] ?? ''}'`);
          } else if (prog === 'npx') {
            if (rest[0] !== 'vitest' || (rest[2] !== undefined && !existsSync(join(ROOT, rest[2])))) problems.push(`${at}: unexpected npx command, or no such test file`);
          } else if (prog === 'ssh') queue.push(...simpleCommands(rest[rest.length - 1] ?? ''));
          else if (!OTHER_PROGRAMS.has(prog!)) problems.push(`${at}: unknown program '${prog}' (not beebot, npm, node or a known tool)`);
        }
      }
    } else if (block.lang === '' || block.lang === 'text') {
      // usage synopses: a line starting with `beebot` and the indented `[--…]` lines under it
      let current: { n: number; text: string } | undefined;
      const flush = () => {
        if (current !== undefined) {
          const at = `line ${current.n}: ${current.text.trim()}`;
          for (const one of synopsisLines(root, current.text.replace(/^\s*beebot\s+/, ''))) {
            problems.push(...checkBeebot(root, words(one), false).map((p) => `${at}: ${p}`));
          }
        }
        current = undefined;
      };
      block.lines.forEach((l, k) => {
        if (/^(\$ )?beebot /.test(l)) {
          flush();
          if (!l.startsWith('$ ')) current = { n: block.firstLine + k, text: l };
          else problems.push(...checkBeebot(root, words(l.slice('$ beebot '.length)), true).map((p) => `line ${block.firstLine + k}: ${l}: ${p}`));
        } else if (current !== undefined && /^\s+\S/.test(l)) current.text += ' ' + l.trim();
        else flush();
      });
      flush();
    }
  }
  return problems;
}

/** GitHub's anchor of a heading. */
const anchor = (h: string) => h.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

/** Relative links to a missing file or heading. */
function checkLinks(page: string, text: string): string[] {
  const problems: string[] = [];
  const dir = page.includes('/') ? page.slice(0, page.lastIndexOf('/')) : '';
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/.test(target)) continue;
    const [file, hash] = target.split('#') as [string, string | undefined];
    const path = file === '' ? page : join(dir, file);
    if (!existsSync(join(ROOT, path))) {
      problems.push(`${page}: link to missing ${target}`);
      continue;
    }
    if (hash !== undefined) {
      const body = readFileSync(join(ROOT, path), 'utf8');
      const anchors = new Set(codeBlocksStripped(body).split('\n').filter((l) => /^#+ /.test(l)).map((l) => anchor(l.replace(/^#+ /, ''))));
      if (!anchors.has(hash)) problems.push(`${page}: link to missing heading ${target}`);
    }
  }
  return problems;
}
const codeBlocksStripped = (text: string) => text.replace(/^\s*```[\s\S]*?^\s*```/gm, '');

let root: Command;
beforeAll(async () => {
  root = await program();
});

describe('docs', () => {
  it('README starts with the two commands', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').slice(2, 6).join('\n')).toBe(
      '```sh\n' +
        'npm ci && npm run demo     # set up, crawl the bundled local demo web, export its external links, print what to run next\n' +
        'npm ci && npm test         # set up, then run the tests\n' +
        '```',
    );
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it.each(PAGES)('%s: every command line matches the CLI', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    expect(checkPage(root, text)).toEqual([]);
  });

  it.each(PAGES)('%s: every relative link points at a file and heading that exist', (page) => {
    expect(checkLinks(page, readFileSync(join(ROOT, page), 'utf8'))).toEqual([]);
  });

  it('the pages show real examples of the main commands', () => {
    const all = PAGES.map((p) => readFileSync(join(ROOT, p), 'utf8')).join('\n');
    const shown = new Set(codeBlocks(all).filter((b) => b.lang === 'sh').flatMap((b) => b.lines.map((l) => /^beebot (\S+)/.exec(l)?.[1]).filter((c) => c !== undefined)));
    for (const c of ['seeds', 'config', 'crawl', 'status', 'links', 'hosts', 'export', 'report']) expect(shown, c).toContain(c);
  });

  it("the hosts bullet of docs/commands.md names the columns hosts prints, in their order, by host and --by domain", async () => {
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'columns.db');
      expect((await beebot(['seeds', 'add', 'a.example'], { db })).code).toBe(0);
      const header = async (...args: string[]) => (await beebot(['hosts', ...args], { db })).stdout.split('\n')[0]!.split('\t');
      const bullet = /^- `hosts`: ([\s\S]*?)^(?:- |#)/m.exec(readFileSync(join(ROOT, 'docs/commands.md'), 'utf8'))![1]!;
      const [byHost, byDomain] = bullet.split('`--by domain`') as [string, string];
      const named = (text: string) => [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
      expect(named(byHost)).toEqual(await header());
      expect(named(byDomain)).toEqual(await header('--by', 'domain'));
    } finally {
      tmp.cleanup();
    }
  });

  it('catches a flag, command, subcommand, argument or script that does not exist', () => {
    const page = (body: string, lang = 'sh') => `text\n\n\`\`\`${lang}\n${body}\n\`\`\`\n`;
    expect(checkPage(root, page('beebot crawl --budget 10 --no-such-flag'))).toEqual([
      "line 4: beebot crawl --budget 10 --no-such-flag: 'crawl' has no flag --no-such-flag",
    ]);
    expect(checkPage(root, page('beebot crawl --budget 10 --delay 0'))).toEqual([]);
    expect(checkPage(root, page('beebot crawel')).join()).toMatch(/no command 'crawel'/);
    expect(checkPage(root, page('beebot seeds ad x.org')).join()).toMatch(/'seeds' needs a subcommand/);
    expect(checkPage(root, page('beebot seeds import')).join()).toMatch(/needs 1 argument/);
    expect(checkPage(root, page('beebot report a.html b.html')).join()).toMatch(/takes 1 argument/);
    expect(checkPage(root, page('npm run no-such-script')).join()).toMatch(/no script 'no-such-script'/);
    expect(checkPage(root, page('node dist/scripts/no-such.js')).join()).toMatch(/no such script/);
    expect(checkPage(root, page('beebot crawl [--budget <pages>] [--frobnicate]', ''))).toEqual([
      "line 4: beebot crawl [--budget <pages>] [--frobnicate]: 'crawl' has no flag --frobnicate",
    ]);
    expect(checkPage(root, page('beebot watch add <url> | list [--json] | model [--min-group-items <n>]', ''))).toEqual([]);
  });
});

describe('the shell examples run', () => {
  const fx = withFixtureWeb();
  const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
  const shCommands = (page: string) => codeBlocks(read(page)).filter((b) => b.lang === 'sh').flatMap(shLines).flatMap((l) => shellSteps(l.text));
  const pages = PAGES.filter((p) => shCommands(p).length > 0);
  const folders: string[] = [];
  let cluster: PgCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
    for (const f of folders) rmSync(f, { recursive: true, force: true });
  });

  it('NOT_RUN names only commands that its pages still show', () => {
    for (const [page, commands] of Object.entries(NOT_RUN)) {
      const shown = shCommands(page).map((s) => s.words.join(' '));
      for (const c of Object.keys(commands)) expect(shown, `${page}: ${c}`).toContain(c);
    }
  });

  /** Runs a page's examples in a new folder: the README's in an empty one, a docs page's in a copy of `from`. */
  async function runPage(page: string, from?: string): Promise<{ dir: string; ran: Ran[] }> {
    const readme = read('README.md');
    const start = readme.indexOf('## A five-minute tour');
    const tour = readme.slice(start, readme.indexOf('\n## ', start + 1));
    // the tour's sites, in order of appearance, become the fixture web's
    const urls = [...new Set([...tour.matchAll(/https:\/\/www\.[a-z.]+/g)].map((m) => m[0]))].filter((u) => !u.includes('example.org'));
    expect(urls.length).toBeGreaterThanOrEqual(3);
    expect(urls.length).toBeLessThanOrEqual(fixtureSeeds.length - 1);
    const sites = fixtureSeeds.filter((s) => s.host !== 'down.test'); // the one whose robots.txt answers 503: nothing there can be reached
    const text = read(page);
    const db = text.includes('postgres://') ? await createDatabase((cluster ??= await startPostgres())) : '';
    const local = (s: string) => urls.reduce((acc, u, k) => acc.replaceAll(u, fx.web.url(sites[k]!.host).replace(/\/$/, '')), s).replace(/postgres:\/\/[^\s'"]+/g, db);

    const dir = mkdtempSync(join(tmpdir(), 'beebot-docs-'));
    folders.push(dir);
    if (from !== undefined) cpSync(from, dir, { recursive: true });
    else {
      const csv = codeBlocks(tour).filter((b) => b.lang === 'csv');
      expect(csv).toHaveLength(1);
      writeFileSync(join(dir, /beebot seeds import (\S+)/.exec(tour)![1]!), local(csv[0]!.lines.join('\n')) + '\n');
    }
    const ran = await runExamples(text, {
      root, checkout: ROOT, dir, local, proxy: `http://127.0.0.1:${fx.web.port}`,
      notRun: new Map(Object.entries(NOT_RUN[page] ?? {})), ctrlCFirstCrawl: from === undefined,
    });
    return { dir, ran };
  }
  let readmeRun: Promise<{ dir: string; ran: Ran[] }> | undefined;
  const runReadme = () => (readmeRun ??= runPage('README.md'));

  it.each(pages)('%s: every shell example runs on the fixture web', async (page) => {
    const { ran } = page === 'README.md' ? await runReadme() : await runPage(page, (await runReadme()).dir);
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.filter((r) => r.problems.length > 0).map((r) => `${r.at}: ${r.problems.join('; ')}`)).toEqual([]);
    if (page === 'README.md') {
      expect(ran.map((r) => /^line \d+: (\S+)/.exec(r.at)?.[1])).toEqual(expect.arrayContaining(['seeds', 'crawl', 'status', 'export', 'report']));
      expect(ran.filter((r) => r.expected === 130), 'the first crawl stopped by Ctrl-C').toHaveLength(1);
    }
  }, 180_000);
});
