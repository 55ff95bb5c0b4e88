// The command-line contract: exit codes, one-line errors, seeds/config/export behaviour, budget.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandNamed } from '../../src/cli/main.js';
import { beebot } from '../helpers/cli.js';
import { withFixtureWeb } from '../helpers/fixture-run.js';

const fx = withFixtureWeb();
let n = 0;
const newDb = () => join(fx.tmp.dir, `db-${++n}.db`);
const count = (db: string, sql: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).pluck().get() as number;
  } finally {
    d.close();
  }
};
const oneLineError = (stderr: string) => {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^beebot: /);
};


describe('help and usage errors', () => {
  const commands = [[], ['seeds'], ['seeds', 'add'], ['seeds', 'import'], ['seeds', 'list'], ['seeds', 'remove'], ['config'], ['config', 'get'], ['config', 'set'], ['crawl'], ['status'], ['export'],
    ['links'], ['links', 'delete'], ['hosts'], ['report'], ['trace'], ['trace', 'export'], ['simulate']];
  it.each(commands.map((c) => [c.join(' ') || '(root)', c]))('%s --help exits 0 with usage', async (_name, cmd) => {
    const r = await beebot([...(cmd as string[]), '--help'], { db: newDb() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: beebot/);
  });

  it('an unknown command or option, or a missing argument, exits 2', async () => {
    for (const args of [['frobnicate'], ['crawl', '--no-such-flag'], ['seeds', 'add'], ['crawl', '--policy', 'nope']]) {
      const r = await beebot(args, { db: newDb() });
      expect(r.code, args.join(' ')).toBe(2);
    }
  });

  it('the root help lists every command, and a command runs after --db in either spelling', async () => {
    const help = await beebot(['--help'], { db: newDb() });
    for (const name of ['seeds', 'config', 'crawl', 'refresh', 'watch', 'status', 'links', 'hosts', 'export', 'report', 'map', 'check', 'search', 'params', 'trace', 'simulate', 'db']) {
      expect(help.stdout, name).toMatch(new RegExp(`\\n  ${name}\\b`));
    }
    const db = newDb();
    const { spawnSync } = await import('node:child_process');
    const { BIN } = await import('../helpers/cli.js');
    const r = spawnSync(process.execPath, [BIN, `--db=${db}`, 'seeds', 'add', 'example.org'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(count(db, 'SELECT count(*) FROM sites')).toBe(1);
  });

  it('finds the command past the global options', () => {
    expect(commandNamed(['node', 'beebot', '--db', 'crawl', 'status'])).toBe('status');
    expect(commandNamed(['node', 'beebot', '--db=x.db', 'crawl', '--budget', '5'])).toBe('crawl');
    expect(commandNamed(['node', 'beebot', '--help'])).toBeUndefined();
    expect(commandNamed(['node', 'beebot', 'staus'])).toBeUndefined();
  });

  it('reads the database path from BEEBOT_DB when --db is not given', async () => {
    const db = newDb();
    const { spawnSync } = await import('node:child_process');
    const { BIN } = await import('../helpers/cli.js');
    const r = spawnSync(process.execPath, [BIN, 'seeds', 'add', 'example.org'], { env: { ...process.env, BEEBOT_DB: db }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(count(db, 'SELECT count(*) FROM sites')).toBe(1);
  });
});

describe('--version', () => {
  it('prints the version and a newline, exit 0', async () => {
    const r = await beebot(['--version'], { db: newDb() });
    expect(r).toMatchObject({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });
});

describe('seeds', () => {
  it('add says what it added (--json: the site as data), reads a bare domain as https, and rejects duplicates and invalid URLs with exit 2', async () => {
    const db = newDb();
    const a = await beebot(['seeds', 'add', 'www.spbu.ru', '--name', 'St Petersburg State University', '--short', 'spbu', '--group', 'university'], { db });
    expect(a).toMatchObject({ code: 0, stdout: 'added site 1: https://www.spbu.ru/ (short: spbu)\n', stderr: '' });
    const b = await beebot(['seeds', 'add', 'msu.ru', '--json'], { db });
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual({ id: 2, url: 'https://msu.ru/', name: null, short: null, group: null, scope: 'host' });
    expect((await beebot(['seeds', 'remove', '2', '--yes'], { db })).code).toBe(0);
    const list = JSON.parse((await beebot(['seeds', 'list', '--json'], { db })).stdout);
    expect(list).toEqual([{
      id: 1, url: 'https://www.spbu.ru/', name: 'St Petersburg State University', short: 'spbu', group: 'university',
      scope: 'host', prefix: null, include: [], exclude: [], sitemaps: 'no', pages_fetched: 0, external: 0, external_urls: 0, external_hosts: 0,
    }]);
    for (const bad of ['http://spbu.ru/', 'ftp://spbu.ru', 'not a url', 'javascript:alert(1)']) {
      const r = await beebot(['seeds', 'add', bad], { db });
      expect(r.code, bad).toBe(2);
      oneLineError(r.stderr);
    }
    expect(count(db, 'SELECT count(*) FROM sites')).toBe(1);
  });

  it('import takes CSV with a header, skips duplicates, and rejects a file with an invalid URL whole', async () => {
    const db = newDb();
    const csv = join(fx.tmp.dir, 'seeds.csv');
    writeFileSync(csv, 'url,name,short,group\r\nhttps://a.example/,"A, Inc.",a,university\r\nb.example,B,b,institute\r\nwww.a.example,dup,,\r\n');
    const r = await beebot(['seeds', 'import', csv], { db });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('added 2, skipped 1');
    expect(r.stdout).toMatch(/line 4: .*duplicates https:\/\/a\.example\//);
    const list = JSON.parse((await beebot(['seeds', 'list', '--json'], { db })).stdout);
    expect(list.map((s: { name: string }) => s.name)).toEqual(['A, Inc.', 'B']);

    const txt = join(fx.tmp.dir, 'seeds.txt');
    writeFileSync(txt, '# my sites\nc.example\nhttp://d.example/x\nmailto:someone@e.example\n');
    const bad = await beebot(['seeds', 'import', txt], { db });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/line 4/);
    expect(count(db, 'SELECT count(*) FROM sites')).toBe(2);
  });

  it('remove asks for confirmation; without --yes off a terminal it refuses', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', 'a.example', '--short', 'a'], { db });
    const refused = await beebot(['seeds', 'remove', 'a'], { db });
    expect(refused.code).toBe(2);
    expect(count(db, 'SELECT count(*) FROM sites')).toBe(1);
    const done = await beebot(['seeds', 'remove', 'https://a.example/', '--yes'], { db });
    expect(done.code).toBe(0);
    expect(count(db, 'SELECT count(*) FROM sites')).toBe(0);
    expect(count(db, 'SELECT count(*) FROM pages')).toBe(0);
    expect((await beebot(['seeds', 'remove', '7', '--yes'], { db })).code).toBe(2);
  });
});

describe('config', () => {
  it('gets defaults, sets checked values, rejects unknown keys and bad values with exit 2', async () => {
    const db = newDb();
    expect((await beebot(['config', 'set', 'delay', '250'], { db })).code).toBe(0); // creates the database; `get` would not
    expect((await beebot(['config', 'get', 'max-level'], { db })).stdout).toBe('5\n');
    expect((await beebot(['config', 'set', 'max-level', '3'], { db })).code).toBe(0);
    expect((await beebot(['config', 'get', 'max-level'], { db })).stdout).toBe('3\n');
    expect(JSON.parse((await beebot(['config', 'get', '--json'], { db })).stdout)).toMatchObject({ 'max-level': 3, scope: 'host', delay: 250 });
    for (const args of [['set', 'max-level', '-1'], ['set', 'scope', 'planet'], ['set', 'nope', '1'], ['get', 'nope']]) {
      const r = await beebot(['config', ...args], { db });
      expect(r.code, args.join(' ')).toBe(2);
      oneLineError(r.stderr);
    }
  });
});

describe('crawl', () => {
  const crawl = (db: string, ...args: string[]) => beebot(['crawl', '--delay', '0', ...args, ...fx.web.resolveArgs()], { db });

  it('with no sites is a usage error', async () => {
    const r = await beebot(['crawl'], { db: newDb() });
    expect(r.code).toBe(2);
    oneLineError(r.stderr);
  });

  it('spends exactly the budget, continues towards it on a rerun, and extends it', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', fx.web.url('thin.test')], { db });
    expect((await crawl(db, '--budget', '10')).stdout).toContain('budget reached');
    expect(count(db, 'SELECT count(*) FROM fetches')).toBe(10);
    expect((await crawl(db)).stdout).toMatch(/^budget reached: this crawl already fetched 10 pages, its budget is 10 pages: nothing to do;/);
    expect((await crawl(db, '--budget', '25', '--concurrency', '3')).code).toBe(0);
    expect(count(db, 'SELECT count(*) FROM fetches')).toBe(25);
    const st = JSON.parse((await beebot(['status', '--json'], { db })).stdout);
    expect(st).toMatchObject({ budget: 25, budget_used: 25 });
    expect(st.sites[0].state).toBe('crawling');
  });

  it('marks a site whose host refuses connections not-available and goes on with the others', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));

    const db = newDb();
    await beebot(['seeds', 'add', `http://dead.test:${deadPort}/`], { db });
    await beebot(['seeds', 'add', fx.web.url('tiny.test')], { db });
    const r = await crawl(db, '--resolve', `dead.test:${deadPort}:127.0.0.1`);
    expect(r.code).toBe(0);
    const st = JSON.parse((await beebot(['status', '--json'], { db })).stdout);
    expect(st.sites[0]).toMatchObject({ state: 'not-available' });
    expect(st.sites[0].reason).toMatch(/refused/);
    expect(st.sites[1]).toMatchObject({ state: 'exhausted' });
  });

  it('reaches sites through --proxy', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', fx.web.url('tiny.test')], { db });
    const before = fx.web.requests;
    const r = await beebot(['crawl', '--delay', '0', '--proxy', `http://127.0.0.1:${fx.web.port}`], { db });
    expect(r.code).toBe(0);
    expect(count(db, "SELECT count(*) FROM pages WHERE status = 'done'")).toBe(3);
    expect(fx.web.requests - before).toBe(4); // robots.txt and three pages, all through the proxy (the PDF is a file: stored, not fetched)
  });

  it('refuses a second crawl on the same database while one runs', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', fx.web.url('thin.test')], { db });
    const first = beebot(['crawl', '--delay', '200', ...fx.web.resolveArgs()], { db });
    await new Promise<void>((resolve) => first.child.stderr!.once('data', () => resolve()));
    const second = await crawl(db);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another crawl \(pid \d+\) is running/);
    first.child.kill('SIGINT');
    expect((await first).code).toBe(130);
  });

  it('freezes scope and normalize once pages are fetched', async () => {
    const db = newDb();
    await beebot(['seeds', 'add', fx.web.url('tiny.test')], { db });
    await crawl(db, '--budget', '1');
    const r = await beebot(['config', 'set', 'normalize', 'paper'], { db });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot change after the crawl has started/);
  });
});

describe('bad databases', () => {
  it('a file that is not SQLite gives one line and exit 1', async () => {
    const db = newDb();
    writeFileSync(db, 'this is not a database, just text '.repeat(200));
    const r = await beebot(['status'], { db });
    expect(r.code).toBe(1);
    oneLineError(r.stderr);
    expect(r.stderr).toMatch(/not a beebot database or is corrupt/);
  });

  it("another program's SQLite database is left untouched", async () => {
    const db = newDb();
    const other = new Database(db);
    other.exec('CREATE TABLE notes (x TEXT)');
    other.close();
    const r = await beebot(['seeds', 'list'], { db });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not a beebot database/);
  });

  it('export to an unknown extension is a usage error', async () => {
    const r = await beebot(['export', join(fx.tmp.dir, 'x.xlsx')], { db: newDb() });
    expect(r.code).toBe(2);
  });
});
