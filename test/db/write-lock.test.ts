// Another process writing the SQLite file: a command waits its turn and says so, with when it gives
// up, and goes on once the other is done; past the wait, one line and no write. Real SQLite files,
// the real CLI; the other process is this test's own connection, so the test decides when it ends.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbError } from '../../src/db/db.js';
import { beginSaying, onLockWait } from '../../src/db/write-lock.js';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';
import { servePages } from '../helpers/page-server.js';
import { rows } from '../helpers/read-db.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => (tmp = tempDir()));
afterAll(() => tmp?.cleanup());

const WAITING = /^waiting for (\S+): another process is writing to it; gives up at \d\d:\d\d:\d\d$/m;

/** Resolves once the running CLI's standard error has a line matching `re`. */
function heard(run: Promise<CliResult> & { child: { stderr: NodeJS.ReadableStream | null } }, re: RegExp): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    run.child.stderr!.on('data', (d: Buffer | string) => {
      text += String(d);
      const m = re.exec(text);
      if (m) resolve(m[0]);
    });
  });
}

/** Another writer on `file`: this test's connection holds the write lock until it ends. */
function otherWriter(file: string): { end: () => void } {
  const other = new Database(file);
  other.pragma('busy_timeout = 10000'); // a crawl's open group is committed within a second
  other.exec('BEGIN IMMEDIATE');
  return {
    end: () => {
      other.exec('COMMIT');
      other.close();
    },
  };
}

describe('beginSaying', () => {
  it('says nothing when the file is free; past a moment names the file and when it gives up; past that, the locked line', () => {
    const file = join(tmp.dir, 'unit.db');
    const told: [string, number][] = [];
    onLockWait((f, at) => told.push([f, at]));
    const db = new Database(file);
    beginSaying(db, 'unit.db', 1500);
    db.exec('ROLLBACK');
    expect(told).toEqual([]);

    const other = otherWriter(file);
    const before = Date.now();
    let err: unknown;
    try {
      beginSaying(db, 'unit.db', 1500);
    } catch (e) {
      err = e;
    }
    other.end();
    expect(told).toHaveLength(1);
    expect(told[0]![0]).toBe('unit.db');
    expect(told[0]![1]).toBeGreaterThanOrEqual(before + 1500);
    expect((dbError(err, 'unit.db') as Error).message).toBe('database unit.db is locked by another process; try again when it is done');
    expect(db.inTransaction).toBe(false);
    db.close();
  });
});

describe('a command while another process writes the file', () => {
  it('seeds add waits its turn, says so once, and adds the site once the other is done', async () => {
    const db = join(tmp.dir, 'seeds.db');
    expect((await beebot(['seeds', 'add', 'http://first.test/'], { db })).code).toBe(0);
    const other = otherWriter(db);
    const run = beebot(['seeds', 'add', 'http://second.test/'], { db });
    const line = await heard(run, WAITING);
    expect(line).toContain(`waiting for ${db}:`);
    other.end();
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/^waiting for /gm)).toHaveLength(1);
    expect(rows<{ url: string }>(db, 'SELECT url FROM sites ORDER BY id').map((s) => s.url)).toEqual(['http://first.test/', 'http://second.test/']);
  }, 60_000);

  it('a crawl held up between its groups of pages says what it waits for, then fetches every page', async () => {
    const n = 60;
    const pages: Record<string, string> = { '/': Array.from({ length: n }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ') };
    for (let i = 0; i < n; i++) pages[`/p${i}`] = `<a href="http://out${i}.test/">out</a>`;
    const site = await servePages(pages);
    try {
      const db = join(tmp.dir, 'crawl.db');
      expect((await beebot(['seeds', 'add', `http://lock.test:${site.port}/`], { db })).code).toBe(0);
      // one page at a time, 100 ms apart: the crawl runs for some seconds, committing as it goes
      const run = beebot(['crawl', '--budget', '100', '--delay', '100', '--concurrency', '1', '--resolve', `lock.test:${site.port}:127.0.0.1`], { db });
      while (site.requests.filter((r) => r.includes('/p')).length < 5) await new Promise((r) => setTimeout(r, 20));
      const other = otherWriter(db);
      let said: string | null;
      let asked: number;
      try {
        // a crawl that ended before it met the lock fails here, not by the test's timeout
        said = await Promise.race([heard(run, WAITING), run.then(() => null)]);
        asked = site.requests.length;
      } finally {
        other.end();
      }
      expect(said, 'the crawl ended before it met the lock').not.toBeNull();
      const r = await run;
      expect(r.code, r.stderr).toBe(0);
      expect(site.requests.length).toBeGreaterThan(asked); // it went on after the wait
      expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM pages WHERE status = 'done'")[0]!.n).toBe(n + 1);
      expect(rows<{ n: number }>(db, 'SELECT count(DISTINCT url) AS n FROM external_links')[0]!.n).toBe(n);
    } finally {
      await site.close();
    }
  }, 90_000);
});
