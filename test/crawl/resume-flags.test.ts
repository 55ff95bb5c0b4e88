// Resume is the same crawl: the flags that make a crawl work (the proxy, the delay, the
// concurrency...) are kept with it, as the budget is, so a plain rerun goes on the same way and
// says where it resumes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resumeLine } from '../../src/cli/progress.js';
import { beebot } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';
import { withFixtureWeb } from '../helpers/fixture-run.js';

const fx = withFixtureWeb();

const get = async (db: string, key: string) => (await beebot(['config', 'get', key], { db })).stdout.trim();

describe('resume keeps the crawl flags', () => {
  it('a rerun without --proxy still goes through the proxy; a flag given again overrides and is kept', async () => {
    const db = join(fx.tmp.dir, 'proxy.db');
    // thin.test resolves nowhere: only the proxy (the fixture web) reaches it
    expect((await beebot(['seeds', 'add', fx.web.url('thin.test')], { db })).code).toBe(0);
    const proxy = `http://127.0.0.1:${fx.web.port}`;
    const first = await beebot(['crawl', '--proxy', proxy, '--delay', '0', '--concurrency', '2', '--budget', '4'], { db });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/resuming/);
    const before = fx.web.requests;
    const again = await beebot(['crawl', '--budget', '8'], { db });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.split('\n')[0]).toBe('resuming: 4 of 8 pages done');
    expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM fetches WHERE error IS NULL")[0]!.n).toBe(8);
    expect(fx.web.requests - before).toBeGreaterThanOrEqual(4);
    expect([await get(db, 'proxy'), await get(db, 'delay'), await get(db, 'concurrency')]).toEqual([proxy, '0', '2']);
    const third = await beebot(['crawl', '--budget', '9', '--delay', '5', '--max-level', '3'], { db });
    expect(third.code, third.stderr).toBe(0);
    expect([await get(db, 'proxy'), await get(db, 'delay'), await get(db, 'max-level')]).toEqual([proxy, '5', '3']);
    expect((await beebot(['crawl', '--proxy', 'none', '--budget', '9'], { db })).code).toBe(0);
    expect(await get(db, 'proxy')).toBe('none');
  }, 60_000);

  it('--resolve is kept as the list given; a bad one is a usage error that writes nothing', async () => {
    const db = join(fx.tmp.dir, 'resolve.db');
    expect((await beebot(['seeds', 'add', fx.web.url('thin.test')], { db })).code).toBe(0);
    const map = `thin.test:${fx.web.port}:127.0.0.1`;
    expect((await beebot(['crawl', '--resolve', map, '--delay', '0', '--budget', '2'], { db })).code).toBe(0);
    const again = await beebot(['crawl', '--budget', '4'], { db });
    expect(again.code, again.stderr).toBe(0);
    expect(rows<{ n: number }>(db, "SELECT count(*) AS n FROM fetches WHERE error IS NULL")[0]!.n).toBe(4);
    expect(await get(db, 'resolve')).toBe(map);
    const bad = await beebot(['crawl', '--resolve', 'nonsense', '--budget', '5'], { db });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(await get(db, 'budget')).toBe('4');
  }, 60_000);

  it('a budget counts every page of the database: one below the pages fetched is refused, saving nothing; one they reach leaves nothing to do', async () => {
    const db = join(fx.tmp.dir, 'spent.db');
    expect((await beebot(['seeds', 'add', fx.web.url('thin.test')], { db })).code).toBe(0);
    const first = await beebot(['crawl', '--resolve', `thin.test:${fx.web.port}:127.0.0.1`, '--delay', '0', '--budget', '4'], { db });
    expect(first.code, first.stderr).toBe(0);
    const fetched = () => rows<{ n: number }>(db, 'SELECT count(*) AS n FROM fetches')[0]!.n;
    expect(fetched()).toBe(4);
    const before = fx.web.requests;

    const below = await beebot(['crawl', '--budget', '3', '--delay', '7'], { db });
    expect([below.code, below.stdout]).toEqual([2, '']);
    expect(below.stderr).toBe('beebot: this crawl already fetched 4 pages and --budget counts them all: give more than 4, e.g. --budget 7 to fetch 3 more (nothing saved)\n');
    expect([await get(db, 'budget'), await get(db, 'delay')]).toEqual(['4', '0']);

    // the budget given again, or none given: the crawl says there is nothing to do, and asks no server
    for (const args of [['--budget', '4'], []]) {
      const spent = await beebot(['crawl', ...args], { db });
      expect(spent.code, spent.stderr).toBe(0);
      expect([spent.stdout, spent.stderr]).toEqual(['budget reached: this crawl already fetched 4 pages, its budget is 4 pages: nothing to do; --budget 8 fetches 4 more, --budget none goes on until every site is exhausted\n', '']);
    }
    expect([fetched(), fx.web.requests - before]).toEqual([4, 0]);
  }, 60_000);

  it('the resume line', () => {
    expect(resumeLine(0, 5000)).toBeNull();
    expect(resumeLine(2933, 5000)).toBe('resuming: 2,933 of 5,000 pages done');
    expect(resumeLine(12, null)).toBe('resuming: 12 pages done');
  });
});
