// Files and locks: the crawl lock through a symbolic link, write errors on standard output, and
// file outputs and a crawl on a full disk. Real CLI on a crawled fixture database; the full disk is
// a tiny tmpfs, mounted in a private mount namespace (`unshare -m`) for the one run.
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { crawlFixture, fixtureSiteId } from '../helpers/fixture-db.js';
import { crawlTables } from '../helpers/crawl-tables.js';

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;
let db: string;
let n = 0;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  db = join(tmp.dir, 'fixture.db');
  await crawlFixture(web, tmp.dir, db);
});
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

describe('the crawl lock', () => {
  it('stops a second crawl that reaches the same database through a symbolic link', async () => {
    const real = join(tmp.dir, 'c.db');
    const link = join(tmp.dir, 'link.db');
    symlinkSync(real, link);
    expect((await beebot(['seeds', 'add', web.url('thin.test')], { db: real })).code).toBe(0);
    const first = beebot(['crawl', '--delay', '200', ...web.resolveArgs()], { db: real });
    await new Promise<void>((resolve) => first.child.stderr!.once('data', () => resolve()));
    const second = await beebot(['crawl', '--delay', '0', ...web.resolveArgs()], { db: link });
    first.child.kill('SIGINT');
    const firstDone = await first;
    expect(second.stderr).toMatch(/^beebot: another crawl \(pid \d+\) is running on .*link\.db\n$/);
    expect(second.code).toBe(1);
    expect(firstDone.code).toBe(130);
  });
});

describe('standard output that cannot be written', () => {
  it('is one line and exit 1 for every command that prints (stdout is /dev/full)', async () => {
    for (const args of [
      ['status'],
      ['status', '--json'],
      ['export', '-'],
      ['links', 'external'],
      ['seeds', 'list'],
      ['trace', 'export', '-'],
    ]) {
      const full = openSync('/dev/full', 'w');
      try {
        const r = await beebot(args, { db, stdout: full });
        expect(r.stderr, args.join(' ')).toBe('beebot: disk full while writing standard output\n');
        expect(r.code, args.join(' ')).toBe(1);
      } finally {
        closeSync(full);
      }
    }
  });
});

describe('a full disk', () => {
  /**
   * Run the CLI with `dir` covered by a full 64 KiB tmpfs (in its own mount namespace, gone when it
   * ends); returns its result and what the tmpfs held afterwards.
   */
  async function onFullDisk(args: (dir: string) => string[]): Promise<{ code: number | null; stderr: string; left: string[] }> {
    const dir = join(tmp.dir, `full-${++n}`);
    const listing = join(tmp.dir, `full-${n}.ls`);
    const script =
      'mkdir -p "$FULL" && mount -t tmpfs -o size=64k tmpfs "$FULL" && { dd if=/dev/zero of="$FULL/fill" bs=4k 2>/dev/null; true; } && ' +
      '"$@"; rc=$?; ls -A "$FULL" > "$LISTING"; exit $rc';
    const r = await beebot(args(dir), { db, prefix: ['unshare', '-m', '--', 'sh', '-c', script, 'sh'], env: { FULL: dir, LISTING: listing } });
    const left = readFileSync(listing, 'utf8').split('\n').filter((f) => f && f !== 'fill');
    return { code: r.code, stderr: r.stderr, left };
  }

  it('trace export leaves no partial file under the target name, exit 1', async () => {
    const r = await onFullDisk((dir) => ['trace', 'export', join(dir, 'trace.json')]);
    expect(r.left).toEqual([]);
    expect(r.code).toBe(1);
  });

  it('every file output says "disk full while writing <file>" in one line, exit 1, and leaves nothing', async () => {
    const site = String(fixtureSiteId('thin.test'));
    for (const [name, args] of [
      ['links.csv', (f: string) => ['export', f]],
      ['graph.gexf', (f: string) => ['export', f]],
      ['trace.json', (f: string) => ['trace', 'export', f]],
      ['map.xml', (f: string) => ['map', site, f]],
      ['report.html', (f: string) => ['report', f]],
    ] as const) {
      const r = await onFullDisk((dir) => args(join(dir, name)));
      expect(r.stderr, name).toMatch(new RegExp(`^beebot: disk full while writing .*/${name.replace('.', '\\.')}\\n$`));
      expect(r.code, name).toBe(1);
      expect(r.left, name).toEqual([]);
    }
  });

  it('a crawl whose database fills its disk ends at once with the disk-full line, never a network wait, and resumes exactly on a bigger disk', async () => {
    // two sites whose every page answers: any wait would be the full disk taken for the network
    const seeded = join(tmp.dir, 'two-sites.db');
    for (const host of ['thin.test', 'hubs.test']) expect((await beebot(['seeds', 'add', web.url(host)], { db: seeded })).code).toBe(0);
    const crawl = ['crawl', '--delay', '0', '--concurrency', '4', ...web.resolveArgs()];
    const whole = join(tmp.dir, 'whole.db');
    copyFileSync(seeded, whole);
    expect((await beebot(crawl, { db: whole })).code).toBe(0);

    const dir = join(tmp.dir, `full-${++n}`);
    const bigger = join(tmp.dir, `bigger-${n}`);
    mkdirSync(bigger);
    // 480 KiB: the seeded database and its WAL fill it about half-way through the crawl
    const script =
      'mkdir -p "$FULL" && mount -t tmpfs -o size=480k tmpfs "$FULL" && cp "$SEEDED" "$FULL/crawl.db" && ' +
      '"$@"; rc=$?; cp "$FULL"/crawl.db* "$BIGGER"/; exit $rc';
    const full = await beebot(crawl, { db: join(dir, 'crawl.db'), prefix: ['unshare', '-m', '--', 'sh', '-c', script, 'sh'], env: { FULL: dir, SEEDED: seeded, BIGGER: bigger } });
    expect(full.code, full.stderr).toBe(1);
    expect(full.stderr).not.toMatch(/^waiting:|network error/m);
    const lines = full.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^beebot: disk full while writing .*crawl\.db$/);
    // the progress lines, then that one line: no stack trace
    for (const l of lines.slice(0, -1)) expect(l).toMatch(/^\d+\t/);
    const before = crawlTables(join(bigger, 'crawl.db'));
    expect(before.pulls).toBeGreaterThan(20);
    expect(before.pulls).toBeLessThan(crawlTables(whole).pulls);

    const resumed = await beebot(crawl, { db: join(bigger, 'crawl.db') });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(crawlTables(join(bigger, 'crawl.db'))).toEqual(crawlTables(whole));
  }, 120_000);
});
