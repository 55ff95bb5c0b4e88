// A PostgreSQL server frozen for good (SIGSTOP) under a crawl: the crawl ends within db-reconnect
// with one line naming the server (exit status 137), and a rerun with the server back continues.
// A long statement on a live server is left alone: the watcher asks the server before it ends anything.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../../fixtures/server.js';
import { fixtureSeeds } from '../../../fixtures/web.js';
import { beebot, tempDir } from '../../helpers/cli.js';
import { crawlTables } from '../../helpers/crawl-tables.js';
import { createDatabase, startPostgres, type PgCluster } from '../../helpers/postgres.js';

let cluster: PgCluster;
let web: FixtureWeb;
const tmp = tempDir();

beforeAll(async () => {
  [cluster, web] = await Promise.all([startPostgres(), startFixtureWeb()]);
  writeFileSync(join(tmp.dir, 'seeds.txt'), fixtureSeeds.map((s) => web.url(s.host)).join('\n') + '\n');
}, 120_000);
afterAll(async () => {
  cluster?.resume();
  await Promise.all([cluster?.stop(), web?.close()]);
  tmp.cleanup();
});

/** What the crawl said besides its progress lines (one per page, tab-separated). */
const said = (stderr: string) => stderr.split('\n').filter((l) => l !== '' && !/^\d+\t/.test(l));

describe('a PostgreSQL server frozen for good', () => {
  it('ends the crawl within db-reconnect with one line naming the server; a rerun once it answers finishes the crawl', async () => {
    const db = await createDatabase(cluster);
    expect((await beebot(['seeds', 'import', join(tmp.dir, 'seeds.txt')], { db })).code).toBe(0);
    expect((await beebot(['config', 'set', 'db-reconnect', '3000'], { db })).code).toBe(0);
    const run = beebot(['crawl', '--delay', '100', '--concurrency', '2', ...web.resolveArgs()], { db });
    let lines = 0;
    // Ten progress lines, or the crawl's end: a crawl that ended before the freeze fails here with what it said, not by the test's timeout.
    const early = await Promise.race([
      new Promise<null>((resolve) => run.child.stderr!.on('data', (d: Buffer | string) => (lines += String(d).split('\n').length - 1) >= 10 && resolve(null))),
      run,
    ]);
    expect(early, early ? `the crawl ended before the freeze: ${early.stderr.slice(-1500)}` : '').toBeNull();
    cluster.pause();
    const frozenAt = Date.now();
    let r;
    let outlived = false;
    // The watchdog ends it within db-reconnect; one that does not is ended here, so the test says so at once.
    const guard = setTimeout(() => ((outlived = true), run.child.kill('SIGKILL')), 30_000);
    try {
      r = await run;
    } finally {
      clearTimeout(guard);
      cluster.resume();
    }
    expect(outlived, `the crawl outlived the freeze by 30 s; it said: ${r.stderr.slice(-1500)}`).toBe(false);
    const waited = Date.now() - frozenAt;
    expect(r.signal).toBe('SIGKILL');
    expect(said(r.stderr)).toEqual([expect.stringMatching(/^beebot: PostgreSQL at \S+ has not answered for [\d.]+ m?s \(frozen, or its disk hangs\); ending the process \(exit status 137\); run it again once the server answers$/)]);
    expect(waited).toBeGreaterThanOrEqual(1500);
    expect(waited).toBeLessThan(3000 + 2000);
    // The fixture web's failing hosts (a reset, a robots.txt 503) are no part of this: a retry of
    // theirs due soon would hold the rerun up to max-backoff (60 s) after its last page.
    expect((await beebot(['config', 'set', 'max-backoff', '1000'], { db })).code).toBe(0);
    const again = await beebot(['crawl', '--delay', '0', ...web.resolveArgs()], { db });
    expect(again.code, again.stderr.slice(-1500)).toBe(0);
    expect(crawlTables(db).fetchedTwice).toEqual([]);
  }, 120_000);

  it('a statement longer than the limit on a live server is left alone', async () => {
    const db = await createDatabase(cluster);
    const module = new URL('../../../dist/src/db/pg/connection.js', import.meta.url).href;
    const script = `import { PgDb } from ${JSON.stringify(module)};
      const d = new PgDb('test', ${JSON.stringify(db)});
      d.frozenLimitMs = 1000;
      d.prepare('SELECT pg_sleep(2.5)').get();
      process.stdout.write('alive');
      d.close();`;
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
      child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out).toEqual({ code: 0, stdout: 'alive', stderr: '' });
  }, 60_000);
});
