// Integration: the report's network section in a real browser (headless Chromium, every request but
// the file itself blocked): the report of a crawl of the fixture web draws every expected node and
// edge, hovering a node names it and highlights its neighbours, the search finds a site, the k
// control shows more hosts, no console error; the same database gives the same layout twice; the
// interlink and co-link tables of a hand-made web match counts made from its own link list.
// A screenshot of the picture is kept at .vitest/network-report.png.
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureSeeds } from '../../fixtures/web.js';
import { renderFile } from '../helpers/browser.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { crawlFixture } from '../helpers/fixture-db.js';
import { crawlLinkedWeb, expectedColinks, expectedInterlinks, LINKED_SITES } from '../helpers/linked-web.js';

export const SCREENSHOT = resolve(import.meta.dirname, '../../.vitest/network-report.png');

let web: FixtureWeb;
let linked: { close: () => Promise<void> };
let tmp: ReturnType<typeof tempDir>;
let db: string;
let linkedDb: string;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  db = join(tmp.dir, 'fixture.db');
  await crawlFixture(web, tmp.dir, db);
  linkedDb = join(tmp.dir, 'linked.db');
  linked = await crawlLinkedWeb(linkedDb);
}, 60_000);
afterAll(async () => {
  await web?.close();
  await linked?.close();
  tmp?.cleanup();
});

const report = async (database: string, name: string, args: string[] = []) => {
  const file = join(tmp.dir, name);
  const r = await beebot(['report', file, ...args], { db: database });
  expect(r.code, r.stderr).toBe(0);
  return file;
};
const rows = <T>(database: string, q: string): T[] => {
  const d = new Database(database, { readonly: true });
  try {
    return d.prepare(q).raw().all() as T[];
  } finally {
    d.close();
  }
};
const networkData = (file: string) =>
  JSON.parse(DomUtils.textContent(DomUtils.findOne((e) => e.attribs.id === 'network-data', parseDocument(readFileSync(file, 'utf8')).children, true)!));

interface Shown {
  nodes: { id: string; label: string; color: string; highlighted: boolean; forceLabel: boolean }[];
  edges: [string, string][];
  camera: { x: number; y: number; ratio: number };
}
const shown = (page: Page) => page.evaluate('window.beebotNetwork.shown()') as Promise<Shown>;
const attr = (page: Page, name: string) => page.evaluate(`document.getElementById('network').getAttribute(${JSON.stringify(name)})`) as Promise<string | null>;

/** Where a node is drawn, in page pixels (the canvas's offset plus sigma's viewport position). */
async function nodePoint(page: Page, id: string): Promise<{ x: number; y: number }> {
  return (await page.evaluate(`(() => {
    const r = window.beebotNetwork.renderer, a = window.beebotNetwork.graph.getNodeAttributes(${JSON.stringify(id)});
    const p = r.graphToViewport({ x: a.x, y: a.y }), box = document.getElementById('network-canvas').getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  })()`)) as { x: number; y: number };
}

describe('the network in the report, in Chromium', () => {
  it('draws every site and every host linked by two sites, with their edges; hover, search and k work; offline, no console error', async () => {
    const file = await report(db, 'report.html');
    // Expected from the stored links by plain SQL: hosts linked by at least two sites (the default k), and each site's edges to them.
    const links = rows<[number, string]>(db, 'SELECT site_id, url FROM external_links WHERE gone_at IS NULL').map(([s, u]) => [fixtureSeeds[s - 1]!.host, new URL(u).hostname] as const);
    const linkers = new Map<string, Set<string>>();
    for (const [s, h] of links) linkers.set(h, (linkers.get(h) ?? new Set()).add(s));
    const hosts = [...linkers].filter(([, s]) => s.size >= 2).map(([h]) => h);
    const expectedNodes = [...fixtureSeeds.map((s) => s.host), ...hosts].sort();
    const expectedEdges = [...new Set(links.filter(([, h]) => hosts.includes(h)).map(([s, h]) => `${s} ${h}`))].sort();
    expect(hosts.length).toBeGreaterThan(3);

    mkdirSync(resolve(SCREENSHOT, '..'), { recursive: true });
    const r = await renderFile(file, undefined, async (page) => {
      await page.waitForFunction(`document.getElementById('network').hasAttribute('data-drawn') || document.getElementById('network').hasAttribute('data-error')`, { timeout: 20_000 });
      const error = await attr(page, 'data-error');
      const before = await shown(page);
      await page.screenshot({ path: SCREENSHOT, fullPage: false, clip: await page.evaluate(`(() => { const b = document.getElementById('network').getBoundingClientRect(); return { x: b.left, y: b.top + window.scrollY, width: b.width, height: b.height }; })()`) as never });

      await page.evaluate(`document.getElementById('network-canvas').scrollIntoView()`);
      const p = await nodePoint(page, 'thin.test');
      await page.mouse.move(p.x, p.y);
      await page.waitForFunction(`document.getElementById('network').getAttribute('data-hovered') === 'thin.test'`, { timeout: 20_000 });
      const hovered = await shown(page);
      const info = await page.evaluate(`document.getElementById('network-info').textContent`);
      await page.mouse.move(2, 2);
      await page.waitForFunction(`document.getElementById('network').getAttribute('data-hovered') === ''`, { timeout: 20_000 });

      await page.type('#network-search', 'HIT');
      await page.keyboard.press('Enter');
      const found = await attr(page, 'data-found');
      // The camera moves in animation frames; a loaded machine may not have drawn the first one yet.
      const zoomed = await page.waitForFunction(`window.beebotNetwork.renderer.getCamera().ratio < 1`, { timeout: 20_000 }).then(() => true, () => false);
      await page.evaluate(`(() => { const k = document.getElementById('network-k'); k.value = '1'; k.dispatchEvent(new Event('input')); })()`);
      const all = await shown(page);
      return { error, before, hovered, info, found, zoomed, all, ready: await attr(page, 'data-ready-ms') };
    });
    expect(r.requests, r.browser).toEqual([]);
    expect(r.errors).toEqual([]);
    const d = r.driven as { error: string | null; before: Shown; hovered: Shown; info: string; found: string; zoomed: boolean; all: Shown; ready: string };
    expect(d.error).toBeNull();

    expect(d.before.nodes.map((n) => n.id).sort()).toEqual(expectedNodes);
    expect(d.before.edges.map(([s, t]) => `${s} ${t}`).sort()).toEqual(expectedEdges);
    expect(d.before.nodes.find((n) => n.id === 'thin.test')!.label).toBe('TSU');
    // Sites of one group share a colour; outside hosts are grey.
    const color = new Map(d.before.nodes.map((n) => [n.id, n.color]));
    expect(color.get('thin.test')).toBe(color.get('cyr.test'));
    expect(color.get('thin.test')).not.toBe(color.get('hubs.test'));
    expect(color.get(hosts[0]!)).toBe('#b8b4b0');

    const neighbours = new Set(expectedEdges.filter((e) => e.startsWith('thin.test ')).map((e) => e.split(' ')[1]!));
    expect(neighbours.size).toBeGreaterThan(0);
    expect(d.hovered.nodes.filter((n) => n.highlighted).map((n) => n.id)).toEqual(['thin.test']);
    for (const n of d.hovered.nodes) {
      if (n.id === 'thin.test' || neighbours.has(n.id)) expect(n.forceLabel && n.color !== '#eeeeee', n.id).toBe(true);
      else expect(n.color, n.id).toBe('#eeeeee');
    }
    expect(d.hovered.edges.map(([s, t]) => `${s} ${t}`).sort()).toEqual([...neighbours].map((h) => `thin.test ${h}`).sort());
    expect(d.info).toMatch(/^TSU \(thin\.test\) · site, group university · links \d+ nodes/);
    expect(d.info).toContain(`${neighbours.size} neighbour`);

    expect(d.found).toBe('hubs.test');
    expect(d.zoomed).toBe(true); // zoomed in on the site found
    expect(d.all.camera.ratio).toBeLessThan(1);
    expect(d.all.nodes.length).toBe(fixtureSeeds.length + linkers.size); // k = 1: every linked host
    expect(Number(d.ready)).toBeGreaterThan(0);
    expect(readFileSync(SCREENSHOT).length).toBeGreaterThan(1000);
  }, 120_000);

  it('draws site → site edges, and a one-site crawl gets its hosts (k falls to 1)', async () => {
    const file = await report(linkedDb, 'linked.html');
    const r = await renderFile(file, `window.beebotNetwork.shown()`);
    expect(r.requests).toEqual([]);
    expect(r.errors).toEqual([]);
    const s = r.probed as Shown;
    const edges = s.edges.map(([a, b]) => `${a} ${b}`);
    for (const k of expectedInterlinks().keys()) expect(edges).toContain(k);

    const one = join(tmp.dir, 'one.db');
    expect((await beebot(['seeds', 'add', 'http://only.example/'], { db: one })).code).toBe(0);
    const empty = await renderFile(await report(one, 'one.html'), `window.beebotNetwork.shown()`);
    expect(empty.errors).toEqual([]);
    expect((empty.probed as Shown).nodes.map((n) => n.id)).toEqual(['only.example']);
    expect(networkData(join(tmp.dir, 'one.html')).k).toBe(1);
  }, 120_000);
});

describe('the network in the report, as written', () => {
  it('the same database gives the same layout twice', async () => {
    const a = networkData(await report(db, 'again-1.html'));
    const b = networkData(await report(db, 'again-2.html'));
    expect(b.nodes).toEqual(a.nodes);
    expect(b.edges).toEqual(a.edges);
  });

  it('--node domain draws registrable domains instead of hosts', async () => {
    const ids = (file: string) => networkData(file).nodes.map((n: unknown[]) => n[0]);
    expect(ids(await report(db, 'hosts.html'))).toContain('www.example.org');
    const domains = ids(await report(db, 'domains.html', ['--node', 'domain']));
    expect(domains).toContain('example.org');
    expect(domains).not.toContain('www.example.org');
  });

  it('the interlink matrix and the co-link table match the hand-made web', async () => {
    const doc = parseDocument(readFileSync(await report(linkedDb, 'tables.html'), 'utf8'));
    const byId = (id: string) => DomUtils.findOne((e) => e.attribs.id === id, doc.children, true)!;
    const cells = DomUtils.findAll((e) => e.name === 'td' && 'data-source' in e.attribs, byId('interlinks').children);
    const matrix = new Map(cells.filter((c) => DomUtils.textContent(c) !== '' && DomUtils.textContent(c) !== '·').map((c) => [`${c.attribs['data-source']} ${c.attribs['data-target']}`, Number(DomUtils.textContent(c))]));
    expect(matrix).toEqual(new Map([...expectedInterlinks()].map(([k, v]) => [k, v.urls])));
    const colinkRows = DomUtils.findAll((e) => e.name === 'tr', byId('colinks').children).slice(1);
    const colinks = new Map(colinkRows.map((tr) => {
      const td = DomUtils.findAll((e) => e.name === 'td', tr.children);
      return [`${td[0]!.attribs['data-site']} ${td[1]!.attribs['data-site']}`, Number(DomUtils.textContent(td[2]!))];
    }));
    expect(colinks).toEqual(expectedColinks());
    // The matrix shows the sites that link or are linked (d.test does neither), by their short names.
    const heads = DomUtils.findAll((e) => e.name === 'th', DomUtils.findAll((e) => e.name === 'thead', byId('interlinks').children)[0]!.children).map((e) => DomUtils.textContent(e).trim());
    expect(heads.slice(1)).toEqual(LINKED_SITES.filter((s) => s.host !== 'd.test').map((s) => s.short));
  });
});
