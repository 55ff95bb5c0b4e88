// `beebot watch` against a loopback hub the test publishes on: an item published while a check's
// answer is on its way gets an appearance interval that holds its true time, and `watch model`
// counts the items of a group watched for less than a few hours.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hubSite } from '../helpers/hub-site.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

interface ItemRow { url: string; found_at: number; from_t: number; to_t: number; point: number | null; source: string }

describe('beebot watch: check times and the model report', () => {
  let tmp: ReturnType<typeof tempDir>;
  let site: Awaited<ReturnType<typeof hubSite>>;
  let db: string;
  const via = () => ['--resolve', `site.test:${site.port}:127.0.0.1`, '--delay', '0'];
  const hub = () => `http://site.test:${site.port}/hub/`;

  beforeEach(async () => {
    tmp = tempDir();
    db = join(tmp.dir, 'w.db');
    site = await hubSite();
    expect((await beebot(['seeds', 'add', `http://site.test:${site.port}/`], { db })).code).toBe(0);
    const c = await beebot(['crawl', '--budget', 'none', '--concurrency', '1', ...via()], { db });
    expect(c.code, c.stderr).toBe(0);
    expect((await beebot(['watch', 'add', hub()], { db })).code).toBe(0);
  });

  afterEach(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('an item published while the answer is delayed gets an interval holding its true time: a check counts from its request', async () => {
    site.o.delayMs = 1500;
    site.o.publishDuringNext = true;
    const r = await beebot(['watch', '--schedule', 'fixed', '--interval', '1s', '--for', '4s', '--json', ...via()], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(site.published).toHaveLength(1);
    const items = rows<ItemRow>(db, 'SELECT url, found_at, from_t, to_t, point, source FROM watch_items');
    expect(items.map((i) => new URL(i.url).pathname)).toEqual(['/hub/i1']);
    const [it] = items;
    const truth = site.published[0]!.at;
    expect(it!.from_t, `published ${truth}, interval (${it!.from_t}, ${it!.to_t}]`).toBeLessThan(truth);
    expect(it!.to_t).toBeGreaterThanOrEqual(truth);
    // the lower bound is the previous check's time: its request, sent before the item was published
    const checks = rows<{ at: number }>(db, 'SELECT at FROM watch_checks ORDER BY seq');
    expect(checks.length).toBeGreaterThanOrEqual(2);
    expect(it!.from_t).toBe(checks[0]!.at);
    expect(it!.to_t).toBe(it!.found_at);
  });

  it('watch model counts the items of a group watched for less than five hours', async () => {
    site.publish();
    site.publish();
    site.publish();
    const r = await beebot(['watch', '--schedule', 'fixed', '--interval', '1h', '--for', '1s', '--json', ...via()], { db });
    expect(r.code, r.stderr).toBe(0);
    const n = rows<{ n: number }>(db, 'SELECT count(*) AS n FROM watch_items')[0]!.n;
    expect(n).toBe(3);
    const m = await beebot(['watch', 'model', '--json'], { db });
    expect(m.code, m.stderr).toBe(0);
    const groups = (JSON.parse(m.stdout) as { groups: { group: string; items_30d: number; r2_cv: number | null }[] }).groups;
    expect(groups).toEqual([expect.objectContaining({ group: `site.test:${site.port}`, items_30d: 3, r2_cv: null })]);
    const table = await beebot(['watch', 'model'], { db });
    expect(table.stdout.trim().split('\n')[2]!.split('\t')[3]).toBe('3');
  });
});
