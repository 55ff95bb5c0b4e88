// Integration: the network of a crawl's sites, through the real CLI: the site-to-site interlinks and
// the co-links as CSV exports, checked against counts made from the hand-made web's own link list;
// the layout the GEXF and GraphML exports carry, and that it is the same on every run.
import { parse } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import Graph from 'graphology';
import gexfLib from 'graphology-gexf';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { colinks } from '../../src/site-graph/colinks.js';
import { interlinkMatrix, interlinks } from '../../src/site-graph/interlinks.js';
import { layOut } from '../../src/site-graph/layout.js';
import { rgb } from '../../src/site-graph/look.js';
import { nodeSize, OUTSIDE_COLOR } from '../../src/site-graph/network.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { crawlLinkedWeb, expectedColinks, expectedInterlinks, LINKED_SITES } from '../helpers/linked-web.js';

// graphology's CommonJS default export and its type declarations disagree under NodeNext.
const GraphClass = Graph as unknown as Parameters<typeof gexfLib.parse>[0];

let tmp: ReturnType<typeof tempDir>;
let web: { close: () => Promise<void> };
let db: string;

beforeAll(async () => {
  tmp = tempDir();
  db = join(tmp.dir, 'linked.db');
  web = await crawlLinkedWeb(db);
}, 60_000);
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

const csvExport = async (name: string, args: string[]) => {
  const file = join(tmp.dir, name);
  const r = await beebot(['export', file, ...args], { db });
  expect(r.code, r.stderr).toBe(0);
  const text = readFileSync(file, 'utf8');
  expect(text.split('\r\n').at(-1)).toBe(''); // RFC 4180: CRLF after every record
  return parse(text, { columns: true }) as Record<string, string>[];
};

describe('interlinks and co-links exports', () => {
  it('--kind interlinks: one row per pair of sites that link, with distinct URLs, link rows and pages', async () => {
    const rows = await csvExport('interlinks.csv', ['--kind', 'interlinks']);
    expect(Object.keys(rows[0]!)).toEqual(['source', 'target', 'urls', 'links', 'pages']);
    const got = new Map(rows.map((r) => [`${r.source} ${r.target}`, { urls: Number(r.urls), links: Number(r.links), pages: Number(r.pages) }]));
    expect(got).toEqual(expectedInterlinks());
    expect(rows.map((r) => `${r.source} ${r.target}`)).toEqual(['a.test b.test', 'a.test c.test', 'b.test a.test']);
  });

  it('--kind colinks: pairs of sites with the outside hosts both link to, most shared first', async () => {
    const rows = await csvExport('colinks.csv', ['--kind', 'colinks']);
    expect(Object.keys(rows[0]!)).toEqual(['site_a', 'site_b', 'shared']);
    expect(new Map(rows.map((r) => [`${r.site_a} ${r.site_b}`, Number(r.shared)]))).toEqual(expectedColinks());
    expect(rows.map((r) => Number(r.shared))).toEqual([...rows.map((r) => Number(r.shared))].sort((a, b) => b - a));
  });

  it('--kind colinks --node domain counts registrable domains; JSON Lines too', async () => {
    const file = join(tmp.dir, 'colinks.jsonl');
    const r = await beebot(['export', file, '--kind', 'colinks', '--node', 'domain'], { db });
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // out1..out5.example are five registrable domains: the same counts as by host.
    expect(new Map(rows.map((x: { site_a: string; site_b: string; shared: number }) => [`${x.site_a} ${x.site_b}`, x.shared]))).toEqual(expectedColinks());
  });

  it('filters that apply to links are refused for these tables (exit 2)', async () => {
    const r = await beebot(['export', join(tmp.dir, 'x.csv'), '--kind', 'colinks', '--site', '1'], { db });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^beebot: --site filters links/);
  });
});

describe('interlinks and co-links (pure)', () => {
  const e = (source: string, target: string, urls = 1) => ({ source, target, urls, weight: urls, pages: 1 });
  const sites = ['s1', 's2', 's3'];

  it('keeps site → site edges only, in the sites order, and fills the matrix by distinct URLs', () => {
    const links = interlinks([e('s2', 's1', 4), e('s1', 'h.example'), e('s1', 's3', 2), e('s1', 's2')], sites);
    expect(links.map((x) => [x.source, x.target, x.urls])).toEqual([['s1', 's2', 1], ['s1', 's3', 2], ['s2', 's1', 4]]);
    expect(interlinkMatrix(links, sites)).toEqual([[0, 1, 2], [4, 0, 0], [0, 0, 0]]);
  });

  it('counts each outside node once per pair of sites linking it; sites linking sites are no co-link', () => {
    const edges = [e('s1', 'x'), e('s2', 'x'), e('s3', 'x'), e('s1', 'y'), e('s3', 'y'), e('s1', 's2'), e('s3', 's2'), e('s2', 'z')];
    expect(colinks(edges, sites)).toEqual([
      { site_a: 's1', site_b: 's3', shared: 2 },
      { site_a: 's1', site_b: 's2', shared: 1 },
      { site_a: 's2', site_b: 's3', shared: 1 },
    ]);
    expect(colinks([e('s1', 'x')], ['s1'])).toEqual([]);
  });
});

describe('the laid-out site graph in GEXF and GraphML', () => {
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['node', 'edge', 'attvalue', 'data', 'key'].includes(name) });
  const gexfNodes = async (name: string) => {
    const file = join(tmp.dir, name);
    const r = await beebot(['export', file], { db });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(XMLValidator.validate(text)).toBe(true);
    type N = { id: string; label: string; attvalues: { attvalue: { for: string; value: string }[] } } & Record<string, Record<string, string>>;
    return { text, nodes: (xml.parse(text).gexf.graph.nodes.node as N[]) };
  };
  const attr = (n: { attvalues: { attvalue: { for: string; value: string }[] } }, k: string) => n.attvalues.attvalue.find((a) => a.for === k)!.value;

  it('GEXF nodes carry viz position, size by linking sites and colour by group; outside hosts grey', async () => {
    const { nodes } = await gexfNodes('viz.gexf');
    expect(nodes.length).toBe(LINKED_SITES.length + 5);
    const color = (n: (typeof nodes)[number]) => `${n['viz:color']!.r},${n['viz:color']!.g},${n['viz:color']!.b}`;
    for (const n of nodes) {
      const [x, y] = [Number(n['viz:position']!.x), Number(n['viz:position']!.y)];
      expect(Number.isFinite(x) && Number.isFinite(y), n.id).toBe(true);
      expect(Number(n['viz:size']!.value), n.id).toBe(nodeSize(attr(n, 'kind') === 'site', Number(attr(n, 'sites_linking'))));
    }
    const byId = new Map(nodes.map((n) => [n.id, n]));
    expect(color(byId.get('a.test')!)).toBe(color(byId.get('b.test')!)); // both universities
    expect(color(byId.get('c.test')!)).toBe(color(byId.get('d.test')!));
    expect(color(byId.get('a.test')!)).not.toBe(color(byId.get('c.test')!));
    expect(color(byId.get('out1.example')!)).toBe(rgb(OUTSIDE_COLOR).join(','));
    // out1 is linked by three sites, out4 by one: the more linked node is drawn larger.
    expect(Number(byId.get('out1.example')!['viz:size']!.value)).toBeGreaterThan(Number(byId.get('out4.example')!['viz:size']!.value));
    // graphology-gexf (as Gephi) reads the viz attributes back as the node's x, y, size and colour.
    const g = gexfLib.parse(GraphClass, readFileSync(join(tmp.dir, 'viz.gexf'), 'utf8'));
    expect(g.getNodeAttribute('a.test', 'x')).toBe(Number(byId.get('a.test')!['viz:position']!.x));
  });

  it('the same database gives the same layout twice, and GraphML carries the same positions', async () => {
    const first = (await gexfNodes('once.gexf')).nodes;
    const second = (await gexfNodes('twice.gexf')).nodes;
    const place = (ns: typeof first) => ns.map((n) => [n.id, n['viz:position']!.x, n['viz:position']!.y]);
    expect(place(second)).toEqual(place(first));
    expect(new Set(place(first).map(([, x, y]) => `${x} ${y}`)).size).toBe(first.length); // no two nodes on one spot

    const file = join(tmp.dir, 'viz.graphml');
    expect((await beebot(['export', file], { db })).code).toBe(0);
    const doc = xml.parse(readFileSync(file, 'utf8'));
    const keys = doc.graphml.key.map((k: { id: string }) => k.id);
    expect(keys).toEqual(expect.arrayContaining(['x', 'y', 'size', 'r', 'g', 'b']));
    const graphmlPlace = doc.graphml.graph.node.map((n: { id: string; data: { key: string; '#text': unknown }[] }) => {
      const d = Object.fromEntries(n.data.map((x) => [x.key, String(x['#text'])]));
      return [n.id, d.x, d.y];
    });
    expect(graphmlPlace).toEqual(place(first));
  });
});

describe('layout (pure)', () => {
  it('is deterministic, spreads the nodes, and places a lone node', () => {
    const nodes = ['s1', 's2', ...Array.from({ length: 30 }, (_, i) => `h${i}.example`)];
    const edges = nodes.slice(2).map((h, i) => ({ source: i % 2 ? 's1' : 's2', target: h, weight: 1 + i }));
    const a = layOut(nodes, edges);
    expect(layOut(nodes, edges)).toEqual(a);
    expect(new Set([...a.values()].map((p) => `${p.x} ${p.y}`)).size).toBe(nodes.length);
    const lone = layOut(['only.test'], []);
    expect(Number.isFinite(lone.get('only.test')!.x)).toBe(true);
  });

  it('turns the colours it writes into GEXF red, green, blue', () => {
    expect(rgb('#4e79a7')).toEqual([0x4e, 0x79, 0xa7]);
    expect(rgb('hsl(0 100% 50%)')).toEqual([255, 0, 0]);
  });
});
