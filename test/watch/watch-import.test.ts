// `beebot watch import`: a history of checks replayed from a CSV file into the watch's tables, all
// or nothing; with eight days of it the learned schedule runs from the command line at once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hubSite } from '../helpers/hub-site.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

const M = 60_000;
const H = 60 * M;
const iso = (t: number) => new Date(t).toISOString();
const errLines = (err: string) => err.trim().split('\n').filter((l) => l !== '' && !l.startsWith('(run with'));
const count = (db: string, table: string) => rows<{ n: number }>(db, `SELECT count(*) AS n FROM ${table}`)[0]!.n;

describe('beebot watch import', () => {
  let tmp: ReturnType<typeof tempDir>;
  let site: Awaited<ReturnType<typeof hubSite>>;
  let db: string;
  const via = () => ['--resolve', `site.test:${site.port}:127.0.0.1`, '--delay', '0'];
  const url = (path: string) => `http://site.test:${site.port}${path}`;
  const csv = (name: string, lines: string[]) => {
    const file = join(tmp.dir, name);
    writeFileSync(file, lines.join('\r\n') + '\r\n');
    return file;
  };

  beforeEach(async () => {
    tmp = tempDir();
    db = join(tmp.dir, 'i.db');
    site = await hubSite(['/news/', '/blog/']);
    expect((await beebot(['seeds', 'add', url('/')], { db })).code).toBe(0);
    const c = await beebot(['crawl', '--budget', 'none', '--concurrency', '1', ...via()], { db });
    expect(c.code, c.stderr).toBe(0);
  });

  afterEach(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('refuses a file with bad rows in one line naming them, and imports nothing', async () => {
    const t = Date.now() - 3 * H;
    const good = [`${url('/news/')},${iso(t)},,,`, `${url('/news/')},${iso(t + H)},${url('/news/a')},page,`];
    const cases: [string[], RegExp][] = [
      [['hub,checked_at,item,kind,published', ...good, `${url('/news/')},yesterday,,,`], /line 4: checked_at 'yesterday' is not an ISO 8601 time/],
      [['hub,checked_at,item,kind,published', ...good, `${url('/nowhere/')},${iso(t)},,,`], /line 4: hub '.*\/nowhere\/' is not a page of this crawl/],
      [['hub,checked_at,item,kind,published', `${url('/news/')},${iso(t)},${url('/news/b')},page,`], /line 2: an item needs an earlier check of its hub/],
      [['hub,checked_at,item,kind,published', ...good, `${url('/news/')},${iso(t + 2 * H)},${url('/news/c')},link,`], /line 4: kind must be page or external/],
      [['hub,checked_at,item,kind,published', ...good, `${url('/news/')},${iso(t + 2 * H)},${url('/news/a')},page,`], /line 4: the item was already found on this hub \(line 3\)/],
      [['hub,checked_at,item,kind,published', ...good, `${url('/news/')},${iso(Date.now() + H)},,,`], /line 4: .* is in the future/],
      [['hub,checked_at,item,kind,published', ...good, `${url('/news/')},${iso(t + 2 * H)}`], /line 4: 2 fields, the header row has 5/],
      [['hub,when', ...good], /header row must name the columns .*unknown: when.*missing: checked_at/],
      [['hub,checked_at,item,kind,published', ...good, `"${url('/news/')},${iso(t)}`], /not valid CSV/],
    ];
    for (const [lines, want] of cases) {
      const r = await beebot(['watch', 'import', csv('bad.csv', lines)], { db });
      expect(r.code, lines.join('\n')).toBe(2);
      expect(errLines(r.stderr), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/nothing imported from .*bad\.csv/);
      expect(r.stderr).toMatch(want);
    }
    expect([count(db, 'watch_checks'), count(db, 'watch_items'), count(db, 'watch_hubs')]).toEqual([0, 0, 0]);
    const missing = await beebot(['watch', 'import', join(tmp.dir, 'none.csv')], { db });
    expect([missing.code, errLines(missing.stderr)]).toEqual([2, [expect.stringMatching(/cannot read .*none\.csv: no such file/)]]);

    // RFC 4180: quoted fields (a comma, a doubled quote), CRLF, columns in any order, optional ones left out
    const ok = await beebot(['watch', 'import', csv('ok.csv', [
      'checked_at,hub,item,kind',
      `${iso(t)},${url('/news/')},,`,
      `${iso(t + H)},"${url('/news/')}","http://ext.test/a?x=1,2&q=""y""",external`,
    ])], { db });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('imported 2 checks and 1 items on 1 hubs\n');
    expect(rows(db, 'SELECT kind, url, from_t, to_t, source FROM watch_items')).toEqual([
      { kind: 'external', url: 'http://ext.test/a?x=1,2&q="y"', from_t: t, to_t: t + H, source: 'interval' },
    ]);
    // a second import must come after what is recorded
    const again = await beebot(['watch', 'import', csv('ok.csv', ['hub,checked_at', `${url('/news/')},${iso(t + 30 * M)}`])], { db });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/line 2: the hub's checks already recorded run to/);
  });

  it('eight days of history: the learned schedule runs at once, checking a busy hub soon and a quiet one at --max', async () => {
    const end = Date.now() - M;
    // /news/: checked every 10 minutes for 8 days, one new item at each check (6 an hour)
    const lines = ['hub,checked_at,item,kind,published'];
    for (let t = end - 8 * 24 * H, k = 0; t <= end; t += 10 * M, k++) lines.push(`${url('/news/')},${iso(t)},${k === 0 ? '' : url(`/news/a${k}`)},${k === 0 ? '' : 'page'},`);
    // /blog/: checked hourly, one item a day, 12 hours away from the hours the live check looks at
    for (let k = 8 * 24; k >= 0; k--) lines.push(`${url('/blog/')},${iso(end - k * H)},${k % 24 === 12 ? url(`/blog/b${k}`) : ''},${k % 24 === 12 ? 'page' : ''},`);
    const file = csv('history.csv', lines);
    const imp = await beebot(['watch', 'import', file], { db });
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toBe(`imported ${8 * 144 + 1 + 8 * 24 + 1} checks and ${8 * 144 + 8} items on 2 hubs\n`);

    const groups = { news: `site.test:${site.port}/news`, host: `site.test:${site.port}` };
    const model = await beebot(['watch', 'model', '--min-group-items', '100', '--json'], { db });
    expect(model.code, model.stderr).toBe(0);
    const report = JSON.parse(model.stdout) as { as_of: string; groups: { group: string; items_30d: number; r2_cv: number | null }[] };
    expect(report.as_of).toBe(iso(end));
    expect(report.groups.map((g) => [g.group, g.items_30d])).toEqual([[groups.host, 8], [groups.news, 8 * 144]]);

    const r = await beebot(['watch', '--schedule', 'learned', '--min-group-items', '100', '--interval', '10m', '--min', '1m', '--max', '2h', '--for', '3s', '--json', ...via()], { db });
    expect(r.code, r.stderr).toBe(0);
    const checks = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>).filter((c) => c.hub);
    expect(checks.map((c) => new URL(c.hub!).pathname).sort()).toEqual(['/blog/', '/news/']);
    const wait = (path: string) => {
      const c = checks.find((x) => new URL(x.hub!).pathname === path)!;
      expect(c.schedule, path).toBe('learned'); // a model, not the fixed interval of a group without history
      return Date.parse(c.next_check!) - Date.parse(c.at!);
    };
    // 6 items an hour: the next one is expected in about 10 minutes
    expect(wait('/news/')).toBeGreaterThan(5 * M);
    expect(wait('/news/')).toBeLessThan(20 * M);
    // about one a day, and none at these hours: wait the maximum
    expect(wait('/blog/')).toBe(2 * H);
  });
});
