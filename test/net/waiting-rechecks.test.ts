// `crawl --refresh`, `beebot refresh` and `beebot watch` while the web cannot be reached: a
// robots.txt or a page that could not be fetched is a failure for now with its cause (not a skip),
// the run says why it waits and until when, and when nothing answers it stops with one line naming
// the cause, exit 1, nothing recorded; a rerun through a working proxy checks every page. The real
// CLI, on loopback, through a proxy that refuses (the waiting rules: src/net/waiting.ts).
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';
import { serveCounting } from '../helpers/counting-site.js';
import { rows } from '../helpers/read-db.js';

const DEAD = 'http://127.0.0.1:1';
const count = (db: string, sql: string): number => rows<{ n: number }>(db, sql)[0]!.n;

let tmp: ReturnType<typeof tempDir>;
let web: FixtureWeb;
let live: string;
beforeAll(async () => {
  tmp = tempDir();
  web = await startFixtureWeb();
  live = `http://127.0.0.1:${web.port}`;
});
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

/** A database whose two sites were crawled through the working proxy; a run that reaches nothing waits 4 s. */
async function crawled(name: string): Promise<string> {
  const db = join(tmp.dir, `${name}.db`);
  for (const host of ['thin.test', 'tsu.test']) expect((await beebot(['seeds', 'add', web.url(host)], { db })).code).toBe(0);
  const c = await beebot(['crawl', '--proxy', live, '--delay', '0', '--budget', '8'], { db });
  expect(c.code, c.stderr).toBe(0);
  expect((await beebot(['config', 'set', 'retry-span', '4000'], { db })).code).toBe(0);
  return db;
}

/** A run through the dead proxy: it waited, saying why and until when, then ended on one line naming the cause, exit 1. */
function expectGaveUp(r: CliResult, again: string, kept = 'the pages stay to be checked'): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toContainEqual(
    expect.stringMatching(/^waiting: [12] sites? unreachable \(connection refused by proxy 127\.0\.0\.1:1\); (next try in \d+ s,|no try before it) gives up at \d\d:\d\d:\d\d$/),
  );
  const last = lines.filter((l) => l.startsWith('beebot:'));
  expect(last).toHaveLength(1);
  expect(last[0]).toMatch(new RegExp(`^beebot: nothing could be reached in this run for \\d+s \\(connection refused by proxy 127\\.0\\.0\\.1:1; \\d+ attempts failed for now, last: http://\\S+: .+\\); nothing recorded, ${kept}: run ${again} again later$`));
  expect(lines.at(-1)).toBe(last[0]);
}

describe('through a proxy that refuses', () => {
  it('crawl --refresh waits, then stops with the cause, nothing checked; a rerun through a working proxy checks every page', async () => {
    const db = await crawled('full-pass');
    const read = count(db, "SELECT count(*) AS n FROM pages WHERE status IN ('done', 'not-html', 'error', 'gone')");
    const started = Date.now();
    const dead = await beebot(['crawl', '--refresh', '--proxy', DEAD], { db });
    expect(Date.now() - started).toBeLessThan(20_000);
    expectGaveUp(dead, 'beebot crawl --refresh');
    expect(dead.stdout).not.toMatch(/[1-9]\d* skipped \(robots\.txt\)/);
    expect(dead.stdout).toMatch(/^left to re-check: [1-9]\d*;/m);
    expect(count(db, 'SELECT count(*) AS n FROM refreshes'), 'nothing recorded').toBe(0);
    const back = await beebot(['crawl', '--refresh', '--proxy', live], { db });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^refresh 1 \(resumed\) stopped: every fetched page re-checked$/m);
    expect(back.stdout).toMatch(/ 0 failed \(kept as they were\), 0 skipped \(robots\.txt\)/);
    expect(count(db, "SELECT count(*) AS n FROM refreshes WHERE action NOT IN ('retry', 'skipped')")).toBe(read);
  }, 90_000);

  it('beebot refresh waits, then stops with the cause, its iteration left to resume; a rerun through a working proxy finishes it', async () => {
    const db = await crawled('iterations');
    const dead = await beebot(['refresh', '--proxy', DEAD], { db });
    expectGaveUp(dead, 'beebot refresh');
    expect(dead.stdout).toMatch(/^iteration 1 stopped \(run again to resume\)/m);
    expect(dead.stdout).not.toMatch(/[1-9]\d* skipped \(robots\.txt\)/);
    expect(count(db, 'SELECT count(*) AS n FROM refreshes'), 'nothing recorded').toBe(0);
    const back = await beebot(['refresh', '--proxy', live], { db });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^iteration 1 \(resumed\): /m);
    expect(back.stdout).toMatch(/ 0 failed \(kept as they were\), 0 skipped \(robots\.txt\)/);
    expect(count(db, "SELECT count(*) AS n FROM refreshes WHERE action = 'retry'")).toBe(0);
  }, 90_000);

  it('beebot watch waits, then stops with the cause, no check recorded; a rerun through a working proxy checks the hub', async () => {
    const db = await crawled('watch');
    expect((await beebot(['watch', 'add', web.url('thin.test')], { db })).code).toBe(0);
    const started = Date.now();
    const dead = await beebot(['watch', '--proxy', DEAD, '--schedule', 'fixed', '--interval', '1h', '--for', '10m'], { db });
    expect(Date.now() - started).toBeLessThan(20_000);
    expectGaveUp(dead, 'beebot watch', 'the hubs stay due');
    expect(count(db, 'SELECT count(*) AS n FROM watch_checks'), 'no check recorded').toBe(0);
    expect(count(db, 'SELECT count(*) AS n FROM watch_hubs WHERE next_check IS NULL'), 'the hub still due').toBe(1);
    const back = await beebot(['watch', '--proxy', live, '--schedule', 'fixed', '--interval', '1h', '--for', '2s'], { db });
    expect(back.code, back.stderr).toBe(0);
    expect(count(db, "SELECT count(*) AS n FROM watch_checks WHERE action IN ('keep', 'replace')")).toBe(1);
  }, 90_000);
});

describe('a site whose server is gone while another answers', () => {
  it('its pages failed for now, with the cause, kept as they were: not skipped for robots.txt', async () => {
    const page = (res: ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>${body}</body></html>`);
    const site = () => serveCounting((path, res) => (path === '/robots.txt' ? res.writeHead(404).end() : page(res, '<a href="/a">a</a> <a href="http://ext.example/">e</a>')));
    const up = await site();
    const gone = await site();
    try {
      const db = join(tmp.dir, 'gone.db');
      const resolve = ['--resolve', `up.test:${up.port}:127.0.0.1`, '--resolve', `gone.test:${gone.port}:127.0.0.1`];
      for (const [host, s] of [['gone.test', gone], ['up.test', up]] as const) expect((await beebot(['seeds', 'add', `http://${host}:${s.port}/`], { db })).code).toBe(0);
      expect((await beebot(['crawl', '--delay', '0', ...resolve], { db })).code).toBe(0);
      await gone.close();
      const r = await beebot(['crawl', '--refresh', '--delay', '0', ...resolve], { db });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/ 2 failed \(kept as they were\), 0 skipped \(robots\.txt\)/);
      const failed = rows<{ url: string; error: string }>(db, "SELECT p.url, r.error FROM refreshes r JOIN pages p ON p.id = r.page_id WHERE r.action = 'retry' ORDER BY p.url");
      expect(failed.map((f) => f.url)).toEqual([`http://gone.test:${gone.port}/`, `http://gone.test:${gone.port}/a`]);
      for (const f of failed) expect(f.error).toMatch(/^robots\.txt unreachable \(refused\)/);
    } finally {
      await up.close();
    }
  }, 60_000);
});
