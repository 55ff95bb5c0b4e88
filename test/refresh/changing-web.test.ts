import http from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChangingWeb, diffStates, WEEK, type ChangingWeb, type PageInfo, type PageState } from '../../fixtures/changing-web/model.js';
import { startChangingWeb, type ChangingWebServer } from '../../fixtures/changing-web/server.js';
import { utcHour, utcWeekday } from '../../fixtures/changing-web/rhythm.js';
import { VirtualClock } from '../../src/time/clock.js';
import { beebot, tempDir } from '../helpers/cli.js';

/** Monday 5 January 2026, 00:00 UTC. */
const START = Date.UTC(2026, 0, 5);
const DAY = 86_400_000;
const web = createChangingWeb({ seed: 7, sites: 3, pagesPerSite: 120, start: START });
const pages = web.pages();
const END = START + 6 * WEEK;

const ofKind = (kind: PageInfo['kind']) => pages.filter((p) => p.kind === kind);
const pathOf = (url: string) => new URL(url).pathname;

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, host: string, path: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { host: `${host}:${port}`, ...headers }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('changing web model', () => {
  it('has every kind, a home page per site, pages within reach of max level 3 (items at 4)', () => {
    for (const kind of ['static', 'edited', 'list', 'hub'] as const) expect(ofKind(kind).length).toBeGreaterThan(0);
    expect(web.hosts).toEqual(['site1.test', 'site2.test', 'site3.test']);
    for (const host of web.hosts) expect(web.page(host, '/', START).status).toBe(200);
    expect(Math.max(...pages.map((p) => p.depth))).toBe(3);
    for (const p of [...ofKind('list'), ...ofKind('hub')]) expect(p.depth).toBeLessThanOrEqual(2);
  });

  it('is deterministic: the same seed gives the same pages at the same times, another seed another web', () => {
    const twin = createChangingWeb({ seed: 7, sites: 3, pagesPerSite: 120, start: START });
    const other = createChangingWeb({ seed: 8, sites: 3, pagesPerSite: 120, start: START });
    // The twin is asked in another order (late times first): lazy generation must not depend on it.
    const times = [START, START + 3 * DAY + 12_345, START + 20 * DAY, END];
    let differ = 0;
    for (const t of [...times].reverse()) for (const p of pages) twin.page(p.host, p.path, t);
    for (const t of times) {
      for (const p of pages) {
        const a = web.page(p.host, p.path, t);
        expect(twin.page(p.host, p.path, t)).toEqual(a);
        if (JSON.stringify(other.page(p.host, p.path, t)) !== JSON.stringify(a)) differ++;
      }
    }
    expect(differ).toBeGreaterThan(pages.length);
    expect(twin.urls(END)).toEqual(web.urls(END));
  });

  it('changes versions exactly at the event times, on whole seconds, and nowhere else', () => {
    const sample = [...ofKind('edited').slice(0, 15), ...pages.filter((p) => p.death < Infinity || p.birth > START), ...ofKind('list').slice(0, 2), ...ofKind('hub').slice(0, 2), ...pages.filter((p) => p.path === '/')];
    let checked = 0;
    for (const p of sample) {
      const times = web.changeTimes(p.host, p.path, START + 2 * WEEK);
      const version = (t: number) => web.state(p.host, p.path, t).version;
      let prev = START;
      for (const e of times) {
        expect(e % 1000).toBe(0);
        expect(version(e - 1)).toBe(version(prev)); // constant between two events
        expect(version(e)).not.toBe(version(e - 1));
        const r = web.page(p.host, p.path, e);
        if (r.status === 200) expect(r.lastModified).toBe(e);
        prev = e;
        checked++;
      }
      expect(version(START + 2 * WEEK)).toBe(version(prev));
    }
    expect(checked).toBeGreaterThan(100);
    // A static page changes only when a page it links is born or dies.
    const lifeTimes = new Set(pages.flatMap((p) => [p.birth, p.death]));
    for (const p of ofKind('static')) for (const e of web.changeTimes(p.host, p.path, END)) expect(lifeTimes.has(e)).toBe(true);
  });

  it('makes births and deaths visible: 404 before birth, 404/410 after death, links only while alive', () => {
    const born = pages.filter((p) => p.birth > START);
    const dying = pages.filter((p) => p.death < Infinity);
    expect(born.length).toBeGreaterThan(3);
    expect(dying.length).toBeGreaterThan(3);
    expect(new Set(dying.map((p) => p.goneStatus))).toEqual(new Set([404, 410]));
    const parentLinking = (p: PageInfo, t: number) => pages.filter((q) => web.state(q.host, q.path, t).links.includes(p.url));
    for (const p of born) {
      expect(web.page(p.host, p.path, p.birth - 1).status).toBe(404);
      expect(web.page(p.host, p.path, p.birth).status).toBe(200);
      expect(parentLinking(p, p.birth - 1)).toEqual([]);
      const linkers = parentLinking(p, p.birth);
      expect(linkers.length).toBe(1);
      expect(web.changeTimes(linkers[0]!.host, linkers[0]!.path, END)).toContain(p.birth);
      expect(web.urls(p.birth - 1)).not.toContain(p.url);
      expect(web.urls(p.birth)).toContain(p.url);
    }
    for (const p of dying) {
      const before = Math.max(p.birth, p.death - 1);
      expect(web.page(p.host, p.path, before).status).toBe(200);
      expect(web.page(p.host, p.path, p.death).status).toBe(p.goneStatus);
      expect(parentLinking(p, before).length).toBe(1);
      expect(parentLinking(p, p.death)).toEqual([]);
      expect(web.urls(p.death)).not.toContain(p.url);
    }
  });

  it('diff: hand-checked arithmetic, identity, and a page that died', () => {
    const a: PageState = {
      alive: true, version: 3, textChars: 180, links: ['http://s.test/x', 'https://e.example/1'],
      blocks: [{ id: 'a', rev: 0, chars: 100 }, { id: 'b', rev: 0, chars: 50 }, { id: 'c', rev: 2, chars: 30 }],
    };
    const b: PageState = {
      alive: true, version: 4, textChars: 190, links: ['http://s.test/x', 'https://e.example/2'],
      blocks: [{ id: 'a', rev: 0, chars: 100 }, { id: 'b', rev: 1, chars: 70 }, { id: 'd', rev: 0, chars: 20 }],
    };
    // a is the same (100); b rewritten (max 50, 70 = 70), c removed (30), d added (20): 120 changed.
    expect(diffStates(a, b)).toEqual({ same: 100, changed: 120, linksAdded: ['https://e.example/2'], linksRemoved: ['https://e.example/1'] });

    const edited = ofKind('edited').find((p) => web.changeTimes(p.host, p.path, END).length >= 3)!;
    expect(web.diff(edited.host, edited.path, START + DAY, START + DAY)).toMatchObject({ changed: 0, linksAdded: [], linksRemoved: [] });
    const s0 = web.state(edited.host, edited.path, START);
    const d = web.diff(edited.host, edited.path, START, END);
    expect(d.changed).toBeGreaterThan(0);
    expect(d.same).toBeLessThanOrEqual(s0.textChars);

    const dying = pages.find((p) => p.death < Infinity && p.birth === START)!;
    const last = web.state(dying.host, dying.path, dying.death - 1);
    expect(web.diff(dying.host, dying.path, dying.death - 1, dying.death)).toEqual({ same: 0, changed: last.textChars, linksAdded: [], linksRemoved: last.links });
  });

  it('list and hub items create child pages on the same site, shown on the feed until pushed out', () => {
    const feeds = [...ofKind('list'), ...ofKind('hub')];
    let checked = 0;
    for (const f of feeds.slice(0, 6)) {
      const items = web.items(f.host).filter((i) => i.hub === f.url && i.published > START && i.published < START + 3 * DAY);
      expect(items.length).toBeGreaterThan(0);
      for (const it of items.slice(0, 20)) {
        const child = pathOf(it.child);
        expect(new URL(it.child).host).toBe(f.host);
        expect(web.page(f.host, child, it.published - 1).status).toBe(404);
        expect(web.page(f.host, child, it.published).status).toBe(200);
        expect(web.state(f.host, f.path, it.published).links).toContain(it.child);
        expect(web.state(f.host, f.path, it.published - 1).links).not.toContain(it.child);
        if (it.external) expect(web.state(f.host, f.path, it.published).links).toContain(it.external);
        const html = (web.page(f.host, f.path, it.published) as { html: string }).html;
        const time = `<time datetime="${new Date(it.published).toISOString()}">`;
        expect(html.includes(time)).toBe(it.shownTime);
        // Long after, the item is off the feed but its page lives on.
        expect(web.state(f.host, f.path, END).links).not.toContain(it.child);
        expect(web.page(f.host, child, END).status).toBe(200);
        expect(web.page(f.host, child.replace('/item', '/item0'), END).status).toBe(404); // one spelling per page
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
    const all = web.items();
    const externals = all.flatMap((i) => (i.external ? [i.external] : []));
    expect(new Set(externals).size).toBe(externals.length);
    expect(externals.length / all.length).toBeGreaterThan(0.5);
    expect(all.filter((i) => i.hub.includes('/list')).every((i) => !i.shownTime)).toBe(true);
    const hubItems = all.filter((i) => i.hub.includes('/hub'));
    const shown = hubItems.filter((i) => i.shownTime).length / hubItems.length;
    expect(shown).toBeGreaterThan(0.4);
    expect(shown).toBeLessThan(0.6);
  });

  it('hubs keep a clear rhythm over 4 weeks: more by day than at night, more on weekdays than at weekends', () => {
    const items = web.items(undefined, START + 4 * WEEK).filter((i) => i.hub.includes('/hub') && i.published >= START);
    const perHour = new Array<number>(24).fill(0);
    const perWeekday = new Array<number>(7).fill(0);
    for (const i of items) {
      perHour[utcHour(i.published)]!++;
      perWeekday[utcWeekday(i.published)]!++;
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const day = mean(perHour.slice(9, 18));
    const night = mean(perHour.slice(0, 5));
    expect(items.length).toBeGreaterThan(1000);
    expect(day).toBeGreaterThan(4 * night);
    const weekday = mean(perWeekday.slice(1, 6));
    const weekend = mean([perWeekday[0]!, perWeekday[6]!]);
    expect(weekday).toBeGreaterThan(2 * weekend);
  });

  it('rates() are the true long-run rates: event counts over 6 weeks match them by kind', () => {
    const rates = web.rates();
    expect(rates.size).toBe(pages.length);
    for (const kind of ['edited', 'list', 'hub'] as const) {
      const ps = ofKind(kind);
      const expected = ps.reduce((s, p) => s + rates.get(p.url)! * (END - START), 0);
      // changeTimes also holds the children's births and deaths: few, and not on feeds' leaves only.
      const counted = ps.reduce((s, p) => s + web.changeTimes(p.host, p.path, END).length, 0);
      expect(counted / expected).toBeGreaterThan(0.85);
      expect(counted / expected).toBeLessThan(1.2);
    }
    for (const p of ofKind('static')) expect(rates.get(p.url)).toBe(0);
  });

  it('generates 6 weeks of a 4 × 150-page web in well under a few seconds', () => {
    const t0 = performance.now();
    const big = createChangingWeb({ seed: 99, sites: 4, pagesPerSite: 150, start: START });
    const urls = big.urls(END);
    for (const p of big.pages()) for (let t = START; t <= END; t += DAY) big.state(p.host, p.path, t);
    const ms = performance.now() - t0;
    expect(urls.length).toBeGreaterThan(10_000);
    expect(ms).toBeLessThan(2500);
  });
});

describe('changing web server', () => {
  let clock: VirtualClock;
  let server: ChangingWebServer;
  beforeAll(async () => {
    clock = new VirtualClock(START);
    server = await startChangingWeb({ web, clock });
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves pages at the clock time, robots.txt, 404 elsewhere; resolve helpers name every host', async () => {
    expect(server.resolveArgs()).toEqual(web.hosts.flatMap((h) => ['--resolve', `${h}:${server.port}:127.0.0.1`]));
    expect([...server.resolveMap()]).toEqual(web.hosts.map((h) => [h, '127.0.0.1']));
    expect(server.url('site2.test', '/p3.html')).toBe(`http://site2.test:${server.port}/p3.html`);
    expect(server.modelUrl(server.url('site2.test', '/p3.html'))).toBe('http://site2.test/p3.html');

    const home = await get(server.port, 'site1.test', '/');
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(home.body).toBe((web.page('site1.test', '/', START) as { html: string }).html);
    const robots = await get(server.port, 'site1.test', '/robots.txt');
    expect(robots.body).toContain('Allow: /');
    expect((await get(server.port, 'site1.test', '/nowhere.html')).status).toBe(404);
    expect((await get(server.port, 'nosuch.test', '/')).status).toBe(404);
  });

  it('answers conditional requests: 304 while unchanged, 200 with new validators after a change (ETag first)', async () => {
    const p = ofKind('edited').find((q) => web.changeTimes(q.host, q.path, END).some((t) => t > clock.now() + DAY))!;
    const change = web.changeTimes(p.host, p.path, END).find((t) => t > clock.now() + DAY)!;
    clock.set(change - DAY);
    const first = await get(server.port, p.host, p.path);
    expect(first.status).toBe(200);
    const etag = first.headers.etag!;
    const lm = first.headers['last-modified']!;
    expect(Date.parse(lm)).toBe((web.page(p.host, p.path, clock.now()) as { lastModified: number }).lastModified);

    expect((await get(server.port, p.host, p.path, { 'if-none-match': etag })).status).toBe(304);
    expect((await get(server.port, p.host, p.path, { 'if-modified-since': lm })).status).toBe(304);
    // ETag wins over a date: a stale tag with a fresh date is a 200.
    expect((await get(server.port, p.host, p.path, { 'if-none-match': '"stale"', 'if-modified-since': lm })).status).toBe(200);

    clock.set(change - 1);
    expect((await get(server.port, p.host, p.path, { 'if-none-match': etag })).status).toBe(304);
    clock.set(change);
    const after = await get(server.port, p.host, p.path, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    expect(Date.parse(after.headers['last-modified']!)).toBe(change);
    expect((await get(server.port, p.host, p.path, { 'if-modified-since': lm })).status).toBe(200);
    expect((await get(server.port, p.host, p.path, { 'if-modified-since': after.headers['last-modified']! })).status).toBe(304);

    const mine = server.log.filter((e) => e.path === p.path && e.host === p.host);
    expect(mine.map((e) => [e.status, e.conditional])).toEqual([
      [200, false], [304, true], [304, true], [200, true], [304, true], [200, true], [200, true], [304, true],
    ]);
    expect(mine.at(-1)!.at).toBe(change);
  });

  it('shows deaths over HTTP (404/410) and routes absolute-form proxy requests by their URL', async () => {
    const dying = pages.filter((p) => p.death < Infinity && p.death > clock.now());
    const p = dying.find((q) => q.goneStatus === 410) ?? dying[0]!;
    clock.set(p.death);
    expect((await get(server.port, p.host, p.path)).status).toBe(p.goneStatus);

    const proxied = await new Promise<number>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: server.port, path: `http://site2.test/`, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    expect(proxied).toBe(200);
    expect(server.log.at(-1)).toMatchObject({ host: 'site2.test', path: '/', status: 200, at: p.death });
  });
});

describe('changing web under the real crawler', () => {
  it('a crawl at max level 4 fetches exactly the live pages reachable from the home page, and no dead link', async () => {
    const small = createChangingWeb({ seed: 3, sites: 1, pagesPerSite: 60, start: START });
    const at = START + 9 * DAY + 10 * 3_600_000;
    const server = await startChangingWeb({ web: small, clock: new VirtualClock(at) });
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'c.db');
      expect((await beebot(['seeds', 'add', server.url('site1.test', '/')], { db })).code).toBe(0);
      const r = await beebot(['crawl', '--delay', '0', '--budget', 'none', '--max-level', '4', ...server.resolveArgs()], { db });
      expect(r.code, r.stderr).toBe(0);

      // Breadth-first over the model's own links, levels 0..4.
      const expected = new Set(['http://site1.test/']);
      let frontier = ['http://site1.test/'];
      for (let level = 0; level < 4; level++) {
        const next: string[] = [];
        for (const u of frontier) {
          for (const l of small.state('site1.test', pathOf(u), at).links) {
            if (new URL(l).host === 'site1.test' && !expected.has(l)) (expected.add(l), next.push(l));
          }
        }
        frontier = next;
      }
      const d = new Database(db, { readonly: true });
      const fetched = (d.prepare("SELECT url FROM pages WHERE status = 'done'").pluck().all() as string[]).map(server.modelUrl);
      d.close();
      expect(new Set(fetched)).toEqual(expected);
      const live = small.pages().filter((p) => p.birth <= at && at < p.death).map((p) => p.url);
      for (const u of live) expect(expected.has(u)).toBe(true);
      expect([...expected].filter((u) => /\/item\d+\.html$/.test(u)).length).toBeGreaterThan(10);
      expect(server.log.filter((e) => e.status !== 200)).toEqual([]);
    } finally {
      await server.close();
      tmp.cleanup();
    }
  });
});
