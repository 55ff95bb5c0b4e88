// The database file itself: deleted under a running crawl, damaged before one, in a directory or on
// a file system this process cannot write, or not there at all. Real CLI, real files; the read-only
// file system is a read-only bind mount in a private mount namespace (`unshare -m`, root), the
// read-only directory is one the CLI, run as `nobody` (setpriv), may not write; `nobody` runs a copy
// of the CLI in a directory it can reach, as the checkout may sit in one only its owner can.
import { chmodSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import type { Command } from 'commander';
import { program } from '../../src/cli/main.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { crawlFixture } from '../helpers/fixture-db.js';
import { rows } from '../helpers/read-db.js';
import { reachableCopy } from '../helpers/reachable-copy.js';

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;
let db: string;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  chmodSync(tmp.dir, 0o755); // the read-only directory's user must reach it
  db = join(tmp.dir, 'fixture.db');
  await crawlFixture(web, tmp.dir, db);
});
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

/** A copy of the crawled fixture database, alone in a new directory. */
function copyOf(name: string): { dir: string; file: string } {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  const file = join(dir, 'c.db');
  copyFileSync(db, file);
  return { dir, file };
}

/** Every command that only reads, with arguments that read the whole fixture crawl. */
const readers = (dir: string): string[][] => [
  ['status'], ['status', '--json'], ['seeds', 'list'], ['config', 'get'], ['links', 'external'], ['hosts'], ['export', '-'],
  ['export', join(dir, 'out.csv')], ['report', join(dir, 'r.html')], ['map', '1', join(dir, 'm.xml')],
  ['trace', 'export', '-'], ['params', 'list'], ['params', 'test', 'http://thin.test/'], ['watch', 'list'], ['watch', 'model'],
];

describe('a database deleted under a running crawl', () => {
  it('stops the crawl with one line, exit 1', async () => {
    // An endless site: page n links to 2n and 2n+1.
    const server = createServer((req, res) => {
      const n = Number(/^\/p(\d+)$/.exec(req.url ?? '')?.[1] ?? 1);
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="/p${2 * n}">a</a> <a href="/p${2 * n + 1}">b</a> <a href="https://ext${n}.example/">x</a>`);
    });
    const port = await listenLoopback(server);
    try {
      const { file } = copyOf('deleted');
      const seeded = await beebot(['seeds', 'add', `http://endless.test:${port}/p1`], { db: file });
      expect(seeded.code, seeded.stderr).toBe(0);
      const crawl = beebot(['crawl', '--delay', '20', '--resolve', `endless.test:${port}:127.0.0.1`], { db: file, env: { CI: '1' } });
      let lines = 0;
      await new Promise<void>((resolve) => crawl.child.stderr!.on('data', (d: string) => (lines += String(d).split('\n').length - 1) >= 10 && resolve()));
      unlinkSync(file);
      const r = await crawl;
      const last = r.stderr.trimEnd().split('\n').filter((l) => l.startsWith('beebot:'));
      expect(last).toEqual([expect.stringMatching(/^beebot: database .*c\.db was deleted while in use; stopped/)]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('a damaged database', () => {
  it('is refused at crawl start with one line, exit 1, and not written to', async () => {
    const { dir, file } = copyOf('corrupt');
    // Zero a page of external_links' unique index, as a failing disk would.
    const [index] = rows<{ name: string }>(file, "SELECT name FROM pragma_index_list('external_links') WHERE \"unique\" = 1");
    const [{ rootpage }] = rows<{ rootpage: number }>(file, 'SELECT rootpage FROM sqlite_master WHERE name = ?', index!.name) as [{ rootpage: number }];
    const [{ page_size: size }] = rows<{ page_size: number }>(file, 'PRAGMA page_size') as [{ page_size: number }];
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(size), 0, size, (rootpage - 1) * size);
    closeSync(fd);
    const before = readFileSync(file);
    for (const args of [['crawl', '--budget', '1000'], ['crawl', '--refresh']]) {
      const r = await beebot([...args, '--delay', '0', ...web.resolveArgs()], { db: file });
      expect(r.stderr, args.join(' ')).toMatch(/^beebot: database .*c\.db is corrupt \(.*\): restore a copy, or recover its rows with sqlite3's \.recover\n$/);
      expect(r.code, args.join(' ')).toBe(1);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['c.db']);
  });

  it('garbage over pages in the middle of the file: every command gives the same one line, exit 1, and export writes no file', async () => {
    const { dir, file } = copyOf('garbled');
    // Random bytes over every leaf page of fetches: a table status reads and export does not.
    const leaves = rows<{ pageno: number }>(file, "SELECT pageno FROM dbstat WHERE name = 'fetches' AND pagetype = 'leaf'").map((r) => r.pageno);
    const [{ page_size: size }] = rows<{ page_size: number }>(file, 'PRAGMA page_size') as [{ page_size: number }];
    expect(leaves.length).toBeGreaterThan(1);
    const fd = openSync(file, 'r+');
    let seed = 1;
    const garbage = Buffer.alloc(size);
    for (const page of leaves) {
      for (let i = 0; i < size; i++) garbage[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16;
      writeSync(fd, garbage, 0, size, (page - 1) * size);
    }
    closeSync(fd);
    const out = join(dir, 'out');
    mkdirSync(out);
    const all = [...readers(out), ['links', 'internal'], ['links', 'bad'], ['search', 'university'], ['crawl', '--delay', '0', ...web.resolveArgs()], ['seeds', 'add', 'http://new.test/']];
    const results = await Promise.all(all.map((args) => beebot(args, { db: file })));
    results.forEach((r, i) => {
      expect(r.stderr, all[i]!.join(' ')).toMatch(/^beebot: database \S*c\.db is corrupt \([^\n]+\): restore a copy, or recover its rows with sqlite3's \.recover\n$/);
      expect(r.stderr, all[i]!.join(' ')).toBe(results[0]!.stderr);
      expect(r.code, all[i]!.join(' ')).toBe(1);
      expect(r.stdout, all[i]!.join(' ')).toBe('');
    });
    expect(readdirSync(out)).toEqual([]);
  }, 240_000);
});

describe('a database this process cannot write', () => {
  const asNobody = ['setpriv', '--reuid', '65534', '--regid', '65534', '--clear-groups', '--'];
  let cli: ReturnType<typeof reachableCopy>;
  beforeAll(() => {
    cli = reachableCopy();
  });
  afterAll(() => cli?.cleanup());
  /** `nobody` may read the directory and the database, not write either. */
  function readOnlyDir(name: string): { dir: string; file: string } {
    const c = copyOf(name);
    const out = join(c.dir, 'out');
    mkdirSync(out);
    chmodSync(out, 0o777); // where file outputs go
    chmodSync(c.file, 0o644);
    chmodSync(c.dir, 0o755);
    return c;
  }
  const roMount = (dir: string): string[] => ['unshare', '-m', '--', 'sh', '-c', 'mount --bind -o ro "$RO" "$RO" && exec "$@"', 'sh'];

  for (const [where, setup, prefix] of [
    ['a read-only directory', readOnlyDir, () => asNobody],
    ['a read-only file system', (n: string) => copyOf(n), roMount],
  ] as const) {
    it(`in ${where}: every read command reads it, and writers say "read-only" in one line, exit 1`, async () => {
      const { dir, file } = setup(where.replace(/ /g, '-'));
      const outDir = join(tmp.dir, `${where.replace(/ /g, '-')}-out`);
      mkdirSync(outDir);
      chmodSync(outDir, 0o777);
      const env = { RO: dir };
      const all = readers(outDir);
      const results = await Promise.all(all.map((args) => beebot(args, { db: file, prefix: prefix(dir), env, bin: cli.bin })));
      results.forEach((r, i) => {
        expect(r.stderr.replace(/^wrote [^\n]* to [^\n]*\n$/, ''), all[i]!.join(' ')).toBe(''); // a file written says so
        expect(r.code, all[i]!.join(' ')).toBe(0);
      });
      const status = await beebot(['status', '--json'], { db: file, prefix: prefix(dir), env, bin: cli.bin });
      expect(JSON.parse(status.stdout).totals.pages_fetched).toBeGreaterThan(10);
      for (const args of [['seeds', 'add', 'http://new.test/'], ['config', 'set', 'delay', '5'], ['crawl', '--delay', '0'], ['links', 'delete', 'external', '--all', '--yes']]) {
        const r = await beebot(args, { db: file, prefix: prefix(dir), env, bin: cli.bin });
        expect(r.stderr, args.join(' ')).toMatch(/^beebot: [^\n]*read-only[^\n]*\n$/);
        expect(r.code, args.join(' ')).toBe(1);
      }
      expect(readdirSync(dir).sort()).toEqual(['c.db', ...(where.includes('directory') ? ['out'] : [])]);
    }, 240_000);
  }
});

describe('a folder with no database', () => {
  it('read commands and those that edit what is there say "no database here" with the path, exit 1, and create nothing', async () => {
    const dir = join(tmp.dir, 'empty');
    mkdirSync(dir);
    const file = join(dir, 'beebot.db');
    const history = join(tmp.dir, 'history.csv');
    writeFileSync(history, 'hub,checked_at\n');
    const all = [
      ...readers(dir), ['search', 'university'], ['links', 'delete', 'external', '--all', '--yes'], ['seeds', 'remove', '1', '--yes'], ['check', '1'],
      ['seeds', 'retry'], ['refresh'], ['crawl', '--refresh'], ['watch', '--for', '1s'], ['watch', 'import', history],
    ];
    const results = await Promise.all(all.map((args) => beebot(args, { db: file })));
    results.forEach((r, i) => {
      expect(r.stderr, all[i]!.join(' ')).toBe(`beebot: no database here: ${file} does not exist (seeds add creates one)\n`);
      expect(r.code, all[i]!.join(' ')).toBe(1);
    });
    expect(readdirSync(dir)).toEqual([]);
  }, 240_000);

  it('a missing database is said before the run lock: one held by a live process beside it does not hide it', async () => {
    const dir = join(tmp.dir, 'locked-empty');
    mkdirSync(dir);
    const file = join(dir, 'beebot.db');
    writeFileSync(`${file}.lock`, String(process.pid)); // as a crawl, refresh or watch holds it
    for (const args of [['refresh'], ['crawl', '--refresh'], ['watch', '--for', '1s']]) {
      const r = await beebot(args, { db: file });
      expect([r.code, r.stderr], args.join(' ')).toEqual([1, `beebot: no database here: ${file} does not exist (seeds add creates one)\n`]);
    }
  });
});

describe('a database in a folder that does not exist', () => {
  /**
   * Every command on the CLI's list, with arguments that get it past its own checks to the
   * database; null for the two that do not open --db (simulate reads --trace, db copy its own two).
   */
  const lines = (dir: string): Record<string, string[] | null> => ({
    'seeds add': ['http://a.test/'], 'seeds import': [join(dir, 'seeds.csv')], 'seeds export': [join(dir, 'seeds-out.csv')], 'seeds list': [],
    'seeds remove': ['1', '--yes'], 'seeds retry': [], 'config get': [], 'config set': ['delay', '5'], crawl: ['--delay', '0'], refresh: [],
    watch: ['--for', '1s'], 'watch add': ['http://a.test/'], 'watch remove': ['http://a.test/'], 'watch import': [join(dir, 'history.csv')],
    'watch list': [], 'watch model': [], status: [], 'links external': [], 'links internal': [], 'links bad': [],
    'links delete': ['internal', '--all', '--yes'], hosts: [], export: [join(dir, 'out.csv')], report: [join(dir, 'r.html')],
    map: ['1', join(dir, 'm.xml')], check: ['1'], search: ['university'], 'params set': ['1', '/', 'x', 'dropped'], 'params list': [],
    'params remove': ['1', '/', 'x'], 'params test': ['http://a.test/'], 'trace export': ['-'], simulate: null, 'db copy': null,
  });
  /** Each command that runs: a subcommand, or a command with an action of its own. */
  const runnable = (c: Command, path: string[] = []): string[] =>
    [...((c as unknown as { _actionHandler: unknown })._actionHandler && path.length ? [path.join(' ')] : []), ...c.commands.flatMap((s) => runnable(s, [...path, s.name()]))];

  it('every command says which folder is missing in one line, exit 1, and creates nothing', async () => {
    const dir = join(tmp.dir, 'no-folder');
    mkdirSync(dir);
    writeFileSync(join(dir, 'seeds.csv'), 'url\nhttp://a.test/\n');
    writeFileSync(join(dir, 'history.csv'), 'url,checked_at,items\n');
    const table = lines(dir);
    expect(Object.keys(table).sort()).toEqual(runnable(await program()).sort());
    const missing = join(dir, 'nope');
    const file = join(missing, 'x.db');
    const all = Object.entries(table).filter((e): e is [string, string[]] => e[1] !== null).flatMap(([name, args]) => [
      [...name.split(' '), ...args],
      ...(name === 'links delete' ? [['links', 'delete', 'external', '--all', '--yes']] : []), // without the crawl lock
    ]);
    const results = await Promise.all(all.map((args) => beebot(args, { db: file })));
    results.forEach((r, i) => {
      expect(r.stderr, all[i]!.join(' ')).toBe(`beebot: cannot open ${file}: the folder ${missing} does not exist\n`);
      expect(r.code, all[i]!.join(' ')).toBe(1);
      expect(r.stdout, all[i]!.join(' ')).toBe('');
    });
    // db copy ignores --db: its target's folder is checked the same way
    const copy = await beebot(['db', 'copy', db, file], { db });
    expect([copy.code, copy.stderr]).toEqual([1, `beebot: cannot open ${file}: the folder ${missing} does not exist\n`]);
    expect(readdirSync(dir).sort()).toEqual(['history.csv', 'seeds.csv']);
  }, 240_000);
});
