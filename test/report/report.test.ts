// Integration: `report` writes one self-contained HTML page for a crawled fixture database, and a real
// browser (headless Chromium: the system's, else the one an npm package ships) runs its script and
// draws the charts.
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DomUtils, parseDocument } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureSeeds } from '../../fixtures/web.js';
import { ChoiceTimeline, HarvestCurve } from '../../src/report/harvest.js';
import { PullWriter } from '../../src/store/pull-writer.js';
import { openDb } from '../../src/db/db.js';
import { insertSites } from '../../src/store/sites.js';
import { renderFile } from '../helpers/browser.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { crawlFixture } from '../helpers/fixture-db.js';

type Element = ReturnType<typeof DomUtils.findAll>[number];

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;
let db: string;
let html: string;
let file: string;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  db = join(tmp.dir, 'fixture.db');
  await crawlFixture(web, tmp.dir, db);
  file = join(tmp.dir, 'report.html');
  const r = await beebot(['report', file], { db });
  expect(r.code, r.stderr).toBe(0);
  html = readFileSync(file, 'utf8');
});
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

const scalar = (q: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(q).pluck().get() as number;
  } finally {
    d.close();
  }
};
const column = (q: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(q).pluck().all();
  } finally {
    d.close();
  }
};
const byId = (root: ReturnType<typeof parseDocument>, id: string) => DomUtils.findOne((e) => e.attribs.id === id, root.children, true)!;
const all = (root: Element | ReturnType<typeof parseDocument>, name: string) => DomUtils.findAll((e) => e.name === name, 'children' in root ? root.children : []);
const text = (e: Element) => DomUtils.textContent(e).trim();
const embedded = (page: string) => JSON.parse(DomUtils.textContent(byId(parseDocument(page), 'report-data')));

/** The DOM after the page's script ran in headless Chromium; the page must ask for nothing else. */
async function renderedDom(page: string): Promise<ReturnType<typeof parseDocument>> {
  const r = await renderFile(page);
  expect(r.requests, r.browser).toEqual([]);
  return parseDocument(r.html);
}

describe('report', () => {
  it('--help exits 0 with usage', async () => {
    const r = await beebot(['report', '--help'], { db: join(tmp.dir, 'help.db') });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: beebot report/);
  });

  it('is one self-contained file: no external scripts, styles, images or fonts', () => {
    expect(existsSync(`${file}.part`)).toBe(false);
    const doc = parseDocument(html);
    const withSrc = DomUtils.findAll((e) => 'src' in e.attribs || (e.name === 'link' && 'href' in e.attribs), doc.children);
    expect(withSrc).toEqual([]);
    for (const s of all(doc, 'style')) expect(text(s)).not.toMatch(/url\(|@import/);
    expect(all(doc, 'script').every((s) => !('src' in s.attribs))).toBe(true);
  });

  it('has the per-site table, top hosts and the crawl settings', async () => {
    const doc = parseDocument(html);
    const rows = all(byId(doc, 'sites'), 'tbody').flatMap((b) => all(b, 'tr'));
    expect(rows.map((r) => text(all(r, 'td')[1]!))).toEqual(fixtureSeeds.map((s) => s.short));
    const tsu = all(rows[0]!, 'td').map(text);
    expect(tsu[5]).toBe(String(scalar('SELECT pulls FROM sites WHERE id = 1')));
    const hosts = all(byId(doc, 'hosts'), 'tbody').flatMap((b) => all(b, 'tr'));
    expect(text(all(hosts[0]!, 'td')[1]!)).toBe('www.example.org');
    expect(hosts.length).toBe(Math.min(25, new Set(column('SELECT url FROM external_links').map((u) => new URL(String(u)).hostname)).size));
    const settings = Object.fromEntries(all(byId(doc, 'settings'), 'tr').map((r) => [text(all(r, 'th')[0]!), text(all(r, 'td')[0]!)]));
    const saved = (await beebot(['config', 'get'], { db })).stdout.trimEnd().split('\n').slice(1).map((l) => l.split('\t'));
    expect(Object.entries(settings)).toEqual(saved);
    expect(settings).toMatchObject({ 'max-level': '5', scope: 'host', budget: 'none' });
  });

  it('embeds the harvest curves and the policy timeline from the pull log', () => {
    const data = embedded(html);
    const pulls = scalar('SELECT count(*) FROM fetches');
    expect(data.harvest.x.at(-1)).toBe(pulls);
    expect(data.harvest.y.at(-1)).toBe(scalar('SELECT sum(reward) FROM fetches'));
    expect(data.sites.map((s: { harvest: { x: number[] } }) => s.harvest.x.at(-1))).toEqual(
      fixtureSeeds.map((_s, i) => scalar(`SELECT count(*) FROM fetches WHERE site_id = ${i + 1}`)),
    );
    const chosen = data.choices.counts.map((row: number[]) => row.reduce((a, b) => a + b, 0));
    expect(chosen).toEqual(fixtureSeeds.map((_s, i) => scalar(`SELECT count(*) FROM fetches WHERE site_id = ${i + 1}`)));
  });

  it('draws its four charts in Chromium', async () => {
    const dom = await renderedDom(file);
    const body = all(dom, 'body')[0]!;
    expect(body.attribs['data-chart-error']).toBeUndefined();
    expect(body.attribs['data-charts-drawn']).toBe('4');
    const marks = (id: string) => Number(byId(dom, id).attribs['data-marks']);
    expect(marks('chart-harvest-total')).toBe(1);
    expect(marks('chart-harvest-sites')).toBe(scalar('SELECT count(DISTINCT site_id) FROM fetches')); // one line per site with pages
    expect(marks('chart-choices')).toBeGreaterThanOrEqual(fixtureSeeds.length);
    expect(marks('chart-hosts')).toBe(25);
    for (const id of ['chart-harvest-total', 'chart-harvest-sites', 'chart-choices', 'chart-hosts']) {
      const svg = byId(dom, id);
      const [w, h] = String(svg.attribs['data-rendered']).split('x').map(Number);
      expect(w, id).toBeGreaterThan(300);
      expect(h, id).toBeGreaterThan(50);
      expect(all(svg, 'polyline').length + all(svg, 'rect').length, id).toBeGreaterThan(0);
    }
    const line = all(byId(dom, 'chart-harvest-total'), 'polyline')[0]!;
    expect(line.attribs.points!.split(' ').length).toBe(embedded(html).harvest.x.length);
  }, 60_000);

  it('fits the window: long setting values such as skip-extensions wrap instead of widening the page', async () => {
    const r = await renderFile(file);
    expect(r.width.page, JSON.stringify(r.width)).toBeLessThanOrEqual(r.width.window);
  }, 60_000);

  it('renders a database with nothing crawled, and keeps hostile names as text', async () => {
    const empty = join(tmp.dir, 'empty.db');
    const hostile = `</script><script>document.body.setAttribute('data-pwned','1')</script><em id="pwned">x</em>`;
    expect((await beebot(['seeds', 'add', 'a.example', '--name', hostile, '--short', '<i>A</i>'], { db: empty })).code).toBe(0);
    const page = join(tmp.dir, 'empty.html');
    expect((await beebot(['report', page, '--title', 'Empty & <new>'], { db: empty })).code).toBe(0);
    const dom = await renderedDom(page);
    const body = all(dom, 'body')[0]!;
    expect(body.attribs['data-chart-error']).toBeUndefined();
    expect(body.attribs['data-charts-drawn']).toBe('0'); // nothing to draw yet, and no error
    expect(body.attribs['data-pwned']).toBeUndefined();
    expect(DomUtils.findOne((e) => e.attribs.id === 'pwned', dom.children, true)).toBeNull();
    expect(text(all(dom, 'title')[0]!)).toBe('Empty & <new>');
    const row = all(byId(dom, 'sites'), 'tbody').flatMap((b) => all(b, 'tr'))[0]!;
    expect(all(row, 'td').map(text).slice(1, 3)).toEqual(['<i>A</i>', hostile]);
  }, 60_000);

  it('lists every site in the per-site legend, 20 of them inside the chart, with distinct counts in the table', async () => {
    const many = join(tmp.dir, 'many.db');
    const d = openDb(many);
    try {
      insertSites(d, Array.from({ length: 20 }, (_, i) => ({ url: new URL(`http://site${i}.example/`), short: `s${i}` })), 'standard');
      const w = new PullWriter(d);
      for (let i = 1; i <= 20; i++) {
        const ext = [`http://out${i % 3}.example/a`, `http://out${i % 3}.example/b`];
        w.commit({
          page: { id: i, siteId: i, url: `http://site${i - 1}.example/`, level: 0 }, final: null, status: 'done', httpStatus: 200,
          contentType: 'text/html', bytes: 1, encoding: 'utf-8', encodingSource: 'meta', error: null, hops: [], ms: 1, retries: 0, note: null, unavailable: null,
          links: { internal: [], external: ext.map((u) => ({ url: u, key: u, host: new URL(u).hostname, anchor: '', rel: '', tag: 'a' })), bad: [] },
        });
      }
      w.group.flush();
    } finally {
      d.close();
    }
    const page = join(tmp.dir, 'many.html');
    expect((await beebot(['report', page], { db: many })).code).toBe(0);
    const dom = await renderedDom(page);
    const svg = byId(dom, 'chart-harvest-sites');
    const legend = DomUtils.findAll((e) => e.attribs.class === 'legend', svg.children);
    expect(legend.map(text)).toEqual(Array.from({ length: 20 }, (_, i) => `s${i}`));
    const [, h] = String(svg.attribs['data-rendered']).split('x').map(Number);
    const lastY = Number(legend.at(-1)!.attribs.y);
    expect(lastY).toBeLessThan(h!);
    const cards = DomUtils.findAll((e) => e.attribs.class === 'card', dom.children).map(text);
    expect(cards).toEqual(expect.arrayContaining(['6distinct external URLs', '3outside hosts', '40(page, external URL) pairs']));
  }, 60_000);

  it('rejects a name that is not .html and a bad --top with exit 2; - writes to stdout', async () => {
    for (const args of [['report', join(tmp.dir, 'r.pdf')], ['report', join(tmp.dir, 'r.html'), '--top', '0']]) {
      const r = await beebot(args, { db });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^beebot: .*\n$/);
    }
    const r = await beebot(['report', '-'], { db });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^<!DOCTYPE html>/);
  });
});

describe('curves (pure)', () => {
  it('thins a long harvest curve to a fixed size, keeping exact sums, the first and the last point', () => {
    const c = new HarvestCurve(1001, 100);
    for (let i = 1; i <= 1001; i++) c.add(i % 3 === 0 ? 2 : 0);
    const { x, y } = c.curve;
    expect(x.length).toBeLessThanOrEqual(102);
    expect([x[0], y[0]]).toEqual([0, 0]);
    expect([x.at(-1), y.at(-1)]).toEqual([1001, 2 * Math.floor(1001 / 3)]);
    x.forEach((n, i) => expect(y[i]).toBe(2 * Math.floor(n / 3)));
  });

  it('cuts the pull sequence into equal runs and counts each site in each', () => {
    const t = new ChoiceTimeline(new Map([[7, 0], [9, 1]]), 10, 5);
    for (const id of [7, 7, 9, 7, 9, 9, 9, 9, 7, 7]) t.add(id);
    expect(t.counts).toEqual([[2, 1, 0, 0, 2], [0, 1, 2, 2, 0]]);
    expect(new ChoiceTimeline(new Map(), 0).bins).toBe(1);
  });
});
