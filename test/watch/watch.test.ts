// `beebot watch` with the real CLI against the changing web, whose virtual clock the
// test moves to publish hub items; and the watcher core on a virtual clock shared with the web,
// for 8 days of history, the learned schedule's bounds and `watch model`.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChangingWeb, type ChangingWeb } from '../../fixtures/changing-web/model.js';
import { startChangingWeb, type ChangingWebServer } from '../../fixtures/changing-web/server.js';
import { openDb, sqliteOf } from '../../src/db/db.js';
import { readSettings, type Settings } from '../../src/store/settings.js';
import { WatchStore } from '../../src/watch/watch-store.js';
import { VirtualClock } from '../../src/time/clock.js';
import { groupKey } from '../../src/watch/groups.js';
import { MIN_HISTORY } from '../../src/watch/model.js';
import { learnedRate, runWatch } from '../../src/watch/watcher.js';
import { shownTimes } from '../../src/watch/hub-times.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

/** Monday 5 January 2026, 09:00 UTC: office hours, hubs publish. */
const START = Date.UTC(2026, 0, 5, 9);
const M = 60_000;
const H = 60 * M;
const MIX = { static: 0.2, edited: 0.1, list: 0, hub: 0.7 };


const jsonLines = (out: string) => out.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
const errLines = (err: string) => err.trim().split('\n').filter((l) => l !== '' && !l.startsWith('(run with'));

interface ItemRow { hub_id: number; kind: string; url: string; found_at: number; from_t: number; to_t: number; point: number | null; source: string }

/**
 * A web, its server on a virtual clock, a database with its site crawled (home page and the hubs
 * linked from it read). The seeds used have at least two such hubs and no page born or dying, so
 * what appears on a hub is exactly its items.
 */
async function crawled(seed: number, dir: string, clock: VirtualClock, latencyMs = 0): Promise<{ web: ChangingWeb; server: ChangingWebServer; db: string; hubs: string[] }> {
  const web = createChangingWeb({ seed, sites: 1, pagesPerSite: 6, start: Date.UTC(2026, 0, 5), mix: MIX });
  const server = await startChangingWeb({ web, clock, latencyMs });
  const db = join(dir, `w${seed}.db`);
  expect((await beebot(['seeds', 'add', server.url('site1.test')], { db })).code).toBe(0);
  const c = await beebot(['crawl', '--delay', '0', '--budget', 'none', '--max-level', '1', ...server.resolveArgs()], { db });
  expect(c.code, c.stderr).toBe(0);
  // --max-level is kept with the crawl: what follows (a refresh) may read deeper, as by default
  expect((await beebot(['config', 'set', 'max-level', '5'], { db })).code).toBe(0);
  const hubs = web.pages().filter((p) => p.kind === 'hub' && p.depth === 1).map((p) => server.url(p.host, p.path));
  expect(hubs.length).toBeGreaterThanOrEqual(2);
  return { web, server, db, hubs };
}

/** What the web published on a hub in (a, b]: its child pages and external links, model URLs. */
function published(web: ChangingWeb, hubModelUrl: string, a: number, b: number): string[] {
  return web.items().filter((it) => it.hub === hubModelUrl && it.published > a && it.published <= b).flatMap((it) => [it.child, ...(it.external ? [it.external] : [])]).sort();
}

describe('beebot watch (CLI)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: VirtualClock;
  let env: Awaited<ReturnType<typeof crawled>>;
  const via = () => ['--delay', '0', ...env.server.resolveArgs()];
  const model = (u: string) => env.server.modelUrl(u);

  beforeEach(() => {
    tmp = tempDir();
    clock = new VirtualClock(START);
  });

  afterEach(async () => {
    await env?.server.close();
    tmp.cleanup();
  });

  it('add, list, remove, and their errors in one line with exit 2', async () => {
    env = await crawled(3, tmp.dir, clock);
    const { db, hubs } = env;
    const none = await beebot(['watch', '--for', '1s', ...via()], { db });
    expect(none.code).toBe(1);
    expect(errLines(none.stderr)).toHaveLength(1);
    expect(none.stderr).toMatch(/no hubs to watch/);

    const add = await beebot(['watch', 'add', hubs[0]!], { db });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^watching /);
    expect((await beebot(['watch', 'add', hubs[0]!], { db })).stdout).toMatch(/^already watched/);
    expect((await beebot(['watch', 'add', hubs[1]!], { db })).code).toBe(0);
    const list = JSON.parse((await beebot(['watch', 'list', '--json'], { db })).stdout) as Record<string, unknown>[];
    expect(list.map((h) => [h.url, h.group, h.added, h.checks, h.items, h.next_check])).toEqual(
      hubs.slice(0, 2).map((u) => [u, groupKey(u), 'manual', 0, 0, null]),
    );
    expect((await beebot(['watch', 'remove', hubs[0]!], { db })).code).toBe(0);
    expect((JSON.parse((await beebot(['watch', 'list', '--json'], { db })).stdout) as { url: string }[]).map((h) => h.url)).toEqual([hubs[1]]);
    const plain = await beebot(['watch', 'list'], { db });
    expect(plain.stdout.split('\n')[1]).toContain(hubs[1]);

    const bad: string[][] = [
      ['watch', 'add', 'not a url'], ['watch', 'add', env.server.url('site1.test', '/nowhere.html')], ['watch', 'remove', hubs[0]!],
      ['watch', 'remove', hubs[2] ?? env.server.url('site1.test', '/')], ['watch', '--schedule', 'sometimes'], ['watch', '--min', '10m', '--max', '1m'],
      ['watch', '--for', '1h', '--until', '2h'], ['watch', '--threshold', '0'], ['watch', '--interval', 'soon'], ['watch', '--site', 'nope'],
      ['watch', '--min-group-items', '0'], ['watch', 'model', '--min-group-items', 'x'],
    ];
    for (const a of bad) {
      const r = await beebot([...a, ...(a[1] === 'add' || a[1] === 'remove' || a[1] === 'model' ? [] : via())], { db });
      expect(r.code, a.join(' ')).toBe(2);
      expect(errLines(r.stderr), a.join(' ')).toHaveLength(1);
    }
    // nothing was fetched by the refused runs
    expect(env.server.log.filter((l) => l.path.startsWith('/hub'))).toHaveLength(hubs.length);
  });

  it('finds the items published on a hub, with appearance bounds (last check, this check], and keeps fixed and learned intervals', async () => {
    env = await crawled(9, tmp.dir, clock);
    const { db, hubs, web } = env;
    const hub = hubs[0]!;
    expect((await beebot(['watch', 'add', hub], { db })).code).toBe(0);
    const crawledAt = Date.parse(rows<{ at: string }>(db, 'SELECT fetched_at AS at FROM pages WHERE url = ?', hub)[0]!.at);

    // Three virtual hours pass on the web: the first check finds what was published since the crawl.
    clock.advance(3 * H);
    // --for 1s, checked every 1s: one check (the next falls after the end)
    const r1 = await beebot(['watch', '--schedule', 'fixed', '--interval', '1s', '--for', '1s', '--json', ...via()], { db });
    expect(r1.code, r1.stderr).toBe(0);
    const [c1, s1] = jsonLines(r1.stdout);
    expect(c1).toMatchObject({ hub, action: 'replace', http_status: 200, schedule: 'fixed' });
    const at1 = Date.parse(c1!.at as string);
    expect(Date.parse(c1!.next_check as string) - at1).toBe(1000);
    const want1 = published(web, model(hub), START, clock.now());
    expect(want1.length).toBeGreaterThan(0);
    const items1 = c1!.items as { kind: string; url: string; from: string; to: string; source: string }[];
    expect(items1.map((i) => (i.kind === 'page' ? model(i.url) : i.url)).sort()).toEqual(want1);
    expect((s1!.summary as Record<string, unknown>)).toMatchObject({ checks: 1, hits: 1, items: want1.length });
    const stored1 = rows<ItemRow>(db, 'SELECT * FROM watch_items ORDER BY id');
    expect(stored1).toHaveLength(want1.length);
    for (const it of stored1) {
      // crawl time < appearance ≤ the answer of the check that found it (the check's time is its
      // request, a little before); under an hour apart: the midpoint stands
      expect(it).toMatchObject({ from_t: crawledAt, to_t: it.found_at, source: 'midpoint', point: crawledAt + Math.ceil((it.to_t - crawledAt) / 2) });
      expect(it.to_t).toBeGreaterThanOrEqual(at1);
      expect(it.to_t - at1).toBeLessThan(1000);
      expect(it.from_t).toBeLessThan(it.to_t);
    }

    // Two more hours: the next run's check is bounded by the first check and itself.
    clock.advance(2 * H);
    await new Promise((r) => setTimeout(r, 1000)); // the hub is due again
    const r2 = await beebot(['watch', '--schedule', 'learned', '--interval', '1h', '--min', '2m', '--max', '30m', '--for', '2s', '--json', ...via()], { db });
    expect(r2.code, r2.stderr).toBe(0);
    const [c2] = jsonLines(r2.stdout);
    const at2 = Date.parse(c2!.at as string);
    // no model yet (a week of history is needed): the fixed interval, held to --max
    expect(c2).toMatchObject({ schedule: 'learned-fixed' });
    expect(Date.parse(c2!.next_check as string) - at2).toBe(30 * M);
    const want2 = published(web, model(hub), START + 3 * H, clock.now());
    expect(want2.length).toBeGreaterThan(0);
    const stored2 = rows<ItemRow>(db, 'SELECT * FROM watch_items WHERE from_t = ?', at1);
    expect(stored2.map((i) => (i.kind === 'page' ? model(i.url) : i.url)).sort()).toEqual(want2);
    for (const it of stored2) expect([it.from_t, it.to_t >= at2 && it.to_t - at2 < 1000]).toEqual([at1, true]);
    expect(rows<{ n: number }>(db, 'SELECT count(*) AS n FROM watch_checks')[0]!.n).toBe(2);
    // the hub is not due for 30 minutes; a hub added now is, and its first check finds what is new since the crawl
    expect((await beebot(['watch', 'add', hubs[1]!], { db })).code).toBe(0);
    const plain = await beebot(['watch', '--schedule', 'fixed', '--interval', '1h', '--for', '1s', ...via()], { db });
    expect(plain.code, plain.stderr).toBe(0);
    const lines = plain.stdout.trim().split('\n');
    // what was published since the crawl and is still on the hub (a hub shows its latest items only)
    const shown = new Set(web.state('site1.test', new URL(hubs[1]!).pathname, clock.now()).links);
    const n = published(web, model(hubs[1]!), START, clock.now()).filter((u) => shown.has(u)).length;
    expect(n).toBeGreaterThan(0);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`Z  ${hubs[1]!.replace(/[.]/g, '\\.')}  200  ${n} new \\(${n} midpoint\\)  next in 1h 00m \\(fixed\\)$`));
    expect(lines[1]).toMatch(/^watch done after /);
    expect(lines[2]).toContain(`1 checks, 1 found something new (hit rate 100 %), ${n} new items`);
  });

  it('adds as hubs the pages whose re-checks found new links (beebot refresh), and not a hub removed by hand', async () => {
    env = await crawled(9, tmp.dir, clock);
    const { db, hubs } = env;
    clock.advance(2 * H); // the hubs publish; the other pages of this web do not change in two hours
    // two iterations: the second reads the item pages the first found on the hubs
    const refresh = await beebot(['refresh', '--budget-time', '1h', '--cost', '0,1', '--iterations', '2', '--json', ...via()], { db });
    expect(refresh.code, refresh.stderr).toBe(0);
    // the hubs' re-checks found new links; the item pages the refresh read for the first time have all their links "added" too, and are no hubs
    const found = rows<{ url: string }>(db, 'SELECT DISTINCT p.url FROM refreshes r JOIN pages p ON p.id = r.page_id WHERE r.links_added > 0 ORDER BY p.id');
    expect(found.map((x) => x.url).filter((u) => !u.includes('/item'))).toEqual(hubs);
    expect(found.length).toBeGreaterThan(hubs.length);
    // one removed by hand first: never added back automatically
    expect((await beebot(['watch', 'add', hubs[0]!], { db })).code).toBe(0);
    expect((await beebot(['watch', 'remove', hubs[0]!], { db })).code).toBe(0);
    const r = await beebot(['watch', '--schedule', 'fixed', '--interval', '1h', '--for', '1s', '--json', ...via()], { db });
    expect(r.code, r.stderr).toBe(0);
    const out = jsonLines(r.stdout);
    expect((out.at(-1)!.summary as { hubs_added: number }).hubs_added).toBe(hubs.length - 1);
    expect(out.slice(0, -1).map((c) => c.hub).sort()).toEqual(hubs.slice(1).sort());
    const list = JSON.parse((await beebot(['watch', 'list', '--json'], { db })).stdout) as { url: string; added: string; checks: number }[];
    expect(list.map((h) => [h.url, h.added, h.checks])).toEqual(hubs.slice(1).map((u) => [u, 'auto', 1]));
  });

  it('resumes after kill -9: no item recorded twice, the hub\'s next check kept, every published item found once', async () => {
    env = await crawled(10, tmp.dir, clock, 30);
    const { db, hubs, web, server } = env;
    for (const h of hubs.slice(0, 2)) expect((await beebot(['watch', 'add', h], { db })).code).toBe(0);
    // the web moves on while the watch runs: a virtual minute every 50 ms
    const ticking = setInterval(() => clock.advance(M), 50);
    try {
      const args = ['watch', '--schedule', 'fixed', '--interval', '1s', '--for', '60s', '--json', ...via()];
      const run = beebot(args, { db });
      const hubRequests = () => server.log.filter((l) => l.path.startsWith('/hub')).length;
      const before = hubRequests();
      while (hubRequests() < before + 8) await new Promise((r) => setTimeout(r, 20));
      run.child.kill('SIGKILL');
      expect((await run).signal).toBe('SIGKILL');
      const checks = rows<{ hub_id: number; next_check: number }>(db, 'SELECT hub_id, next_check FROM watch_checks ORDER BY seq');
      expect(checks.length).toBeGreaterThan(0);
      for (const h of rows<{ page_id: number; next_check: number | null }>(db, 'SELECT page_id, next_check FROM watch_hubs')) {
        const last = checks.filter((c) => c.hub_id === h.page_id).at(-1);
        expect(h.next_check).toBe(last?.next_check ?? null);
      }
      const again = await beebot(['watch', '--schedule', 'fixed', '--interval', '1s', '--for', '3s', '--json', ...via()], { db });
      expect(again.code, again.stderr).toBe(0);
    } finally {
      clearInterval(ticking);
    }
    const dup = rows<{ n: number }>(db, 'SELECT count(*) - count(DISTINCT hub_id || kind || url) AS n FROM watch_items')[0]!.n;
    expect(dup).toBe(0);
    for (const h of hubs.slice(0, 2)) {
      const path = new URL(h).pathname;
      const last = server.log.filter((l) => l.path === path).at(-1)!.at;
      const got = rows<{ kind: string; url: string }>(db, 'SELECT i.kind, i.url FROM watch_items i JOIN pages p ON p.id = i.hub_id WHERE p.url = ?', h);
      expect(got.map((i) => (i.kind === 'page' ? server.modelUrl(i.url) : i.url)).sort()).toEqual(published(web, server.modelUrl(h), START, last));
    }
  });
});

describe('watcher core on a virtual clock shared with the web', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: VirtualClock;
  let env: Awaited<ReturnType<typeof crawled>>;
  let settings: Settings;
  const DAYS8 = MIN_HISTORY + 24 * H;

  beforeAll(async () => {
    tmp = tempDir();
    clock = new VirtualClock(START);
    env = await crawled(3, tmp.dir, clock);
    const d = openDb(env.db);
    try {
      settings = { ...readSettings(d), delay: 0 } as Settings;
      const store = new WatchStore(d);
      const byUrl = d.prepare('SELECT id FROM pages WHERE url = ?').pluck();
      for (const h of env.hubs) store.add(byUrl.get(h) as number, groupKey(h), 'manual', START);
      // 8 days of history at a fixed 10 minutes
      const sum = await runWatch(d, {
        settings, schedule: 'fixed', sites: null, interval: 10 * M, min: M, max: 2 * H, threshold: 1, until: START + DAYS8, autoHubs: false,
        resolve: env.server.resolveMap(), proxy: null, signal: new AbortController().signal, clock,
      });
      expect(sum.checks).toBe(env.hubs.length * (DAYS8 / (10 * M) + 1));
    } finally {
      d.close();
    }
  }, 120_000);

  afterAll(async () => {
    await env?.server.close();
    tmp.cleanup();
  });

  it('dates items by the time the hub shows next to them, else the midpoint of two checks 10 minutes apart', () => {
    const items = rows<ItemRow>(env.db, 'SELECT * FROM watch_items');
    const truth = new Map(env.web.items().flatMap((it) => [[it.child, it], ...(it.external ? [[it.external, it] as const] : [])]));
    let shown = 0;
    for (const i of items) {
      const t = truth.get(i.kind === 'page' ? env.server.modelUrl(i.url) : i.url)!;
      expect(t.published).toBeGreaterThan(i.from_t);
      expect(t.published).toBeLessThanOrEqual(i.to_t);
      expect(i.to_t - i.from_t).toBe(10 * M);
      if (t.shownTime) {
        shown++;
        expect(i).toMatchObject({ source: 'published', point: t.published });
      } else expect(i).toMatchObject({ source: 'midpoint', point: i.from_t + 5 * M });
    }
    expect(shown).toBeGreaterThan(items.length / 4);
    expect(shown).toBeLessThan(items.length);
  });

  it('learned: every next check within [min, max]; longer waits at night than in office hours', async () => {
    const file = join(tmp.dir, 'learned.db');
    const d0 = openDb(env.db);
    await sqliteOf(d0).backup(file);
    d0.close();
    const d = openDb(file);
    const c = new VirtualClock(clock.now());
    const server = await startChangingWeb({ web: env.web, clock: c });
    try {
      const min = 3 * M;
      const max = 90 * M;
      const from = c.now();
      const sum = await runWatch(d, {
        settings, schedule: 'learned', sites: null, interval: 10 * M, min, max, threshold: 0.5, models: { minGroupItems: 10 }, until: from + 24 * H,
        autoHubs: false, resolve: new Map(), proxy: `http://127.0.0.1:${server.port}`, signal: new AbortController().signal, clock: c,
      });
      expect(sum.checks).toBeGreaterThan(10);
      const checks = d.prepare('SELECT at, next_check AS next, schedule FROM watch_checks WHERE at > ?').all(from) as { at: number; next: number; schedule: string }[];
      expect(new Set(checks.map((x) => x.schedule))).toEqual(new Set(['learned']));
      for (const x of checks) {
        expect(x.next - x.at).toBeGreaterThanOrEqual(min);
        expect(x.next - x.at).toBeLessThanOrEqual(max);
      }
      const gap = (hours: (h: number) => boolean) => {
        const g = checks.filter((x) => hours(new Date(x.at).getUTCHours())).map((x) => x.next - x.at);
        return g.reduce((a, b) => a + b, 0) / g.length;
      };
      // the web's rhythm: busy 07–19 h UTC, a trickle 23–05 h
      expect(gap((h) => h >= 0 && h <= 4)).toBeGreaterThan(2 * gap((h) => h >= 9 && h <= 17));
    } finally {
      d.close();
      await server.close();
    }
  });

  it('watch model: items of 30 days, merging, R² by cross-validation and on the newest data, busiest hours in office hours', async () => {
    const r = await beebot(['watch', 'model', '--json', '--min-group-items', '10'], { db: env.db });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { as_of: string; groups: { group: string; merged: boolean; hubs: number; items_30d: number; r2_cv: number; r2_newest: number; busiest: { day: string; hour: number }[] }[] };
    expect(Date.parse(out.as_of)).toBe(START + DAYS8);
    const items = rows<{ grp: string; n: number }>(env.db, 'SELECT grp, count(*) AS n FROM watch_items GROUP BY grp ORDER BY grp');
    expect(out.groups.map((g) => [g.group, g.merged, g.hubs, g.items_30d])).toEqual(items.map((x) => [x.grp, false, 1, x.n]));
    for (const g of out.groups) {
      expect(g.r2_cv).toBeLessThanOrEqual(1);
      expect(g.r2_cv).toBeGreaterThan(0.2); // the rhythm explains much of the hourly counts
      expect(Number.isFinite(g.r2_newest)).toBe(true);
      expect(g.busiest).toHaveLength(3);
      for (const b of g.busiest) {
        expect(b.hour).toBeGreaterThanOrEqual(7);
        expect(b.hour).toBeLessThanOrEqual(19);
        expect(['Mon', 'Tue', 'Wed', 'Thu', 'Fri']).toContain(b.day);
      }
    }
    // the article's threshold (1,000 items in 30 days) is above every group's count: all merged into the host
    const table = await beebot(['watch', 'model'], { db: env.db });
    expect(table.code, table.stderr).toBe(0);
    const host = new URL(env.hubs[0]!).host;
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toBe(`hub groups, the 30 days before ${new Date(START + DAYS8).toISOString().replace('.000Z', 'Z')}`);
    expect(lines[1]!.split('\t')).toEqual(['group', 'merged', 'hubs', 'items 30d', 'R² cv', 'R² newest', 'busiest hours (items/h)']);
    expect(lines).toHaveLength(3);
    const row = lines[2]!.split('\t');
    expect(row.slice(0, 4)).toEqual([host, `yes (${env.hubs.length} keys)`, String(env.hubs.length), String(items.reduce((s, x) => s + x.n, 0))]);
    expect(Number(row[4])).toBeGreaterThan(0.2);
    expect(row[6]).toMatch(/^(Mon|Tue|Wed|Thu|Fri) (0[7-9]|1\d)h \d+\.\d\d, /);
  }, 120_000);
});

describe('pure parts of the watch', () => {
  it('shownTimes: the <time> in the same list item dates its links; links outside an item or in an undated one get none', () => {
    const html = `<ul>
      <li><time datetime="2026-01-05T10:15:00Z">Mon</time> <a href="/hub1/item3.html">three</a> <a href="https://ext.example/x#frag">src</a></li>
      <li><a href="/hub1/item2.html">two, undated</a></li>
      <li><time datetime="1990-01-01T00:00:00Z">too old</time><a href="item1.html">one</a></li>
      <li><time datetime="2026-01-05T09:00:00+01:00">x</time><article><a href="/nested">nested</a></article></li>
    </ul><p><a href="/outside">outside</a></p>`;
    const t = shownTimes(html, 'http://s.test/hub1/', Date.UTC(2026, 0, 6));
    expect([...t].sort()).toEqual([
      ['http://s.test/hub1/item3.html', Date.UTC(2026, 0, 5, 10, 15)],
      ['https://ext.example/x', Date.UTC(2026, 0, 5, 10, 15)],
    ].sort());
    // the nested article has no time of its own, and its links are not the outer item's
    expect(t.has('http://s.test/nested')).toBe(false);
    expect(t.has('http://s.test/outside')).toBe(false);
    expect(t.has('http://s.test/hub1/item1.html')).toBe(false);
  });

  it('learnedRate: count is the rate itself; sqrt is √(rate × the week\'s mean), the same at a constant rate', () => {
    const H = 3_600_000;
    const busy = (t: number) => (Math.floor(t / H) % 24 < 12 ? 4 : 1); // 12 hours at 4, 12 at 1: mean 2.5
    expect(learnedRate(busy, 'count')).toBe(busy);
    const s = learnedRate(busy, 'sqrt');
    expect(s(Date.UTC(2026, 0, 5, 3))).toBeCloseTo(Math.sqrt(4 * 2.5), 12);
    expect(s(Date.UTC(2026, 0, 5, 15))).toBeCloseTo(Math.sqrt(1 * 2.5), 12);
    expect(learnedRate(() => 3, 'sqrt')(Date.UTC(2026, 0, 5))).toBeCloseTo(3, 12);
    expect(learnedRate(() => 0, 'sqrt')(0)).toBe(0);
  });
});
