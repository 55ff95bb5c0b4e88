// Integration: `export` of links (CSV, JSON Lines), the site graph (GEXF, GraphML, edge and node lists),
// formula neutralization against a page whose anchor texts are spreadsheet formulas, and streaming
// in bounded memory. Real CLI, real HTTP on loopback, real SQLite; graph files parsed back by real parsers.
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import Graph from 'graphology';
import gexf from 'graphology-gexf';

// graphology's CommonJS default export and its type declarations disagree under NodeNext.
const GraphClass = Graph as unknown as Parameters<typeof gexf.parse>[0];
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureFacts, fixtureSeeds } from '../../fixtures/web.js';
import { neutralizeFormula } from '../../src/cli/formula-guard.js';
import { BIN, beebot, tempDir } from '../helpers/cli.js';
import { crawlFixture } from '../helpers/fixture-db.js';

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;
let db: string;
let evilDb: string;
let evil: http.Server;
let n = 0;
const out = (name: string) => join(tmp.dir, `${++n}-${name}`);

// Anchor texts a page author could use to attack whoever opens the export in a spreadsheet.
const FORMULAS = ['=HYPERLINK("http://calc.example/","click")', '+1+2', '-3+4', '@SUM(A1)', '\uFF1D1+1'];
const PLAIN = 'plain, "quoted" text';
const EVIL_SHORT = '@E&<x>"';
const EVIL_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title></head><body>
${FORMULAS.map((f, i) => `<a href="https://calc.example/${i}">${f.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</a>`).join('\n')}
<a href="https://calc.example/plain">${PLAIN}</a>
<a href="&#9;javascript:tab()">tab</a>
<a href="javascript:a&#10;b">newline</a>
</body></html>`;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  db = join(tmp.dir, 'fixture.db');
  await crawlFixture(web, tmp.dir, db);

  evil = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(EVIL_PAGE);
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  const port = (evil.address() as AddressInfo).port;
  evilDb = join(tmp.dir, 'evil.db');
  expect((await beebot(['seeds', 'add', `http://evil.test:${port}/`, '--short', EVIL_SHORT, '--group', 'a<b'], { db: evilDb })).code).toBe(0);
  const r = await beebot(['crawl', '--delay', '0', '--resolve', `evil.test:${port}:127.0.0.1`], { db: evilDb });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await web?.close();
  await new Promise<void>((r) => (evil ? evil.close(() => r()) : r()));
  tmp?.cleanup();
});

const sql = <T>(file: string, q: string): T[] => {
  const d = new Database(file, { readonly: true });
  try {
    return d.prepare(q).all() as T[];
  } finally {
    d.close();
  }
};
const exportTo = async (file: string, args: string[] = [], from = db) => {
  const r = await beebot(['export', file, ...args], { db: from });
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(file, 'utf8');
};
const csv = (text: string) => parse(text, { columns: true, bom: true }) as Record<string, string>[];

describe('link exports', () => {
  it('writes RFC 4180 CSV: header row, CRLF, every external link in storage order', async () => {
    const text = await exportTo(out('external.csv'));
    expect(text.split('\r\n')[0]).toBe('site_id,site,source_url,source_level,url,anchor_text,rel,tag,found_at,last_seen,gone_at');
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/); // no bare LF outside quoted fields in this data
    const stored = sql<{ url: string; anchor: string; found_at: string }>(db, 'SELECT url, anchor, found_at FROM external_links ORDER BY id');
    const rows = csv(text);
    expect(rows.map((r) => [r.url, r.anchor_text, r.found_at])).toEqual(stored.map((s) => [s.url, s.anchor, s.found_at]));
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('adds a UTF-8 BOM with --bom, and writes CSV to stdout for -', async () => {
    const file = out('bom.csv');
    await exportTo(file, ['--bom', '--kind', 'bad']);
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3, 10).toString()).toBe('site_id');
    const r = await beebot(['export', '-', '--kind', 'internal', '--site', 'TRF'], { db });
    expect(r.stdout.split('\r\n')[0]).toBe('site_id,site,url,level,status,found_on_url,found_at,last_seen,gone_at');
    expect(csv(r.stdout).length).toBe(fixtureFacts.pages['tiny.test']!.length + 1); // + the PDF
  });

  it('writes JSON Lines and applies the link filters', async () => {
    const text = await exportTo(out('filtered.jsonl'), ['--host', 'example.org', '--level', '1']);
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
    const want = sql<{ url: string }>(db, 'SELECT url FROM external_links WHERE level = 1').filter((r) => new URL(r.url).hostname.endsWith('example.org'));
    expect(lines.map((l) => l.url)).toEqual(want.map((w) => w.url));
    expect(lines.every((l) => l.source_level === 1 && typeof l.site_id === 'number')).toBe(true);
  });

  it('neutralizes formulas in CSV by default (OWASP), keeps them with --raw and in JSON Lines', async () => {
    const safe = csv(await exportTo(out('evil.csv'), [], evilDb));
    const byUrl = new Map(safe.map((r) => [r.url, r]));
    FORMULAS.forEach((f, i) => expect(byUrl.get(`https://calc.example/${i}`)!.anchor_text).toBe(`'${f}`));
    expect(byUrl.get('https://calc.example/plain')!.anchor_text).toBe(PLAIN);
    expect(safe.every((r) => r.site === `'${EVIL_SHORT}` && r.site_id === '1' && r.source_level === '0')).toBe(true);

    const raw = csv(await exportTo(out('evil-raw.csv'), ['--raw'], evilDb));
    expect(raw.map((r) => r.anchor_text)).toEqual([...FORMULAS, PLAIN]);
    const jsonl = (await exportTo(out('evil.jsonl'), [], evilDb)).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(jsonl.map((r) => r.anchor_text)).toEqual([...FORMULAS, PLAIN]);

    // bad links: a raw href starting with a tab is neutralized; one holding a newline is quoted
    const badText = await exportTo(out('evil-bad.csv'), ['--kind', 'bad'], evilDb);
    expect(badText).toContain('"javascript:a\nb"');
    expect(csv(badText).map((r) => r.raw_href)).toEqual(["'\tjavascript:tab()", 'javascript:a\nb']);
  });

  it('neutralizes formulas in piped `links` output too, unless --raw; --json is exact', async () => {
    const tsv = (await beebot(['links', 'external'], { db: evilDb })).stdout.trimEnd().split('\n').slice(1).map((l) => l.split('\t')[5]);
    expect(tsv).toEqual([...FORMULAS.map((f) => `'${f}`), PLAIN]);
    const raw = (await beebot(['links', 'external', '--raw'], { db: evilDb })).stdout.trimEnd().split('\n').slice(1).map((l) => l.split('\t')[5]);
    expect(raw).toEqual([...FORMULAS, PLAIN]);
    const json = JSON.parse((await beebot(['links', 'external', '--json'], { db: evilDb })).stdout);
    expect(json.map((r: { anchor_text: string }) => r.anchor_text)).toEqual([...FORMULAS, PLAIN]);
  });
});

describe('site graph exports', () => {
  const externalTotal = () => sql<{ n: number }>(db, 'SELECT count(*) AS n FROM external_links')[0]!.n;

  it('edge list: site → host with link counts, for Gephi', async () => {
    const edges = csv(await exportTo(out('edges.csv'), ['--kind', 'edges']));
    expect(Object.keys(edges[0]!)).toEqual(['source', 'target', 'weight', 'pages', 'type']);
    expect(edges.reduce((a, e) => a + Number(e.weight), 0)).toBe(externalTotal());
    expect(new Set(edges.map((e) => `${e.source} ${e.target}`)).size).toBe(edges.length);
    expect(edges.every((e) => e.type === 'Directed' && Number(e.pages) <= Number(e.weight))).toBe(true);
    const thinToOrg = edges.find((e) => e.source === 'thin.test' && e.target === 'www.example.org')!;
    const stored = sql<{ n: number }>(db, "SELECT count(*) AS n FROM external_links WHERE site_id = 1 AND url LIKE 'https://www.example.org/%'")[0]!.n;
    expect(Number(thinToOrg.weight)).toBe(stored);

    const byDomain = csv(await exportTo(out('edges-domain.csv'), ['--kind', 'edges', '--node', 'domain']));
    expect(byDomain.reduce((a, e) => a + Number(e.weight), 0)).toBe(externalTotal());
    expect(byDomain.length).toBeLessThan(edges.length);
    expect(byDomain.some((e) => e.target === 'example.org')).toBe(true);
  });

  it('node list: every target site (with group and pages crawled) and every linked host', async () => {
    const nodes = csv(await exportTo(out('nodes.csv'), ['--kind', 'nodes']));
    const sites = nodes.filter((x) => x.kind === 'site');
    expect(sites.map((s) => [s.id, s.label, s.group])).toEqual(fixtureSeeds.map((s) => [s.host, s.short, s.group]));
    const pulls = sql<{ pulls: number }>(db, 'SELECT pulls FROM sites ORDER BY id');
    expect(sites.map((s) => Number(s.pages))).toEqual(pulls.map((p) => p.pulls));
    const hosts = new Set(sql<{ url: string }>(db, 'SELECT url FROM external_links').map((r) => new URL(r.url).hostname));
    expect(new Set(nodes.filter((x) => x.kind === 'host').map((x) => x.id))).toEqual(hosts);
    for (const h of fixtureFacts.companionHosts) expect(Number(nodes.find((x) => x.id === h)!.sites_linking), h).toBeGreaterThanOrEqual(2);
  });

  it('GEXF: parsed back by graphology-gexf, with node attributes and weighted edges', async () => {
    const text = await exportTo(out('graph.gexf'));
    const g = gexf.parse(GraphClass, text);
    const nodes = csv(await exportTo(out('nodes2.csv'), ['--kind', 'nodes']));
    const edges = csv(await exportTo(out('edges2.csv'), ['--kind', 'edges']));
    expect(g.type).toBe('directed');
    expect(g.order).toBe(nodes.length);
    expect(g.size).toBe(edges.length);
    expect(g.getNodeAttributes('thin.test')).toMatchObject({ label: 'TSU', kind: 'site', group: 'university', pages: expect.any(Number) });
    expect(g.getNodeAttributes('thin.test').pages).toBeGreaterThan(0);
    expect(g.getNodeAttributes('www.example.org')).toMatchObject({ kind: 'host', group: 'external' });
    let weights = 0;
    g.forEachEdge((_e, a) => (weights += a.weight as number));
    expect(weights).toBe(externalTotal());
    expect(g.getEdgeAttributes(g.edge('thin.test', 'www.example.org')!).weight).toBe(
      Number(edges.find((e) => e.source === 'thin.test' && e.target === 'www.example.org')!.weight),
    );
    const idn = fixtureFacts.samples.idn;
    expect(idn.host).toMatch(/^xn--/);
    expect(g.getNodeAttribute(idn.host, 'label')).toBe('минобрнауки.рф'); // the id stays punycode, the label is for people
  });

  it('GraphML: well-formed XML with declared keys, the same nodes and weighted edges', async () => {
    const text = await exportTo(out('graph.graphml'));
    expect(XMLValidator.validate(text)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name, _path, _leaf, isAttribute) => !isAttribute && ['key', 'node', 'edge', 'data'].includes(name) }).parse(text);
    const keys = new Map<string, { for: string; 'attr.name': string; 'attr.type': string }>(doc.graphml.key.map((k: { id: string }) => [k.id, k]));
    const graph = doc.graphml.graph;
    expect(graph.edgedefault).toBe('directed');
    const data = (el: { data: { key: string; '#text'?: string | number }[] }) => {
      for (const d of el.data) expect(keys.has(d.key), d.key).toBe(true);
      return Object.fromEntries(el.data.map((d) => [keys.get(d.key)!['attr.name'], d['#text'] ?? '']));
    };
    const nodes = graph.node.map((x: { id: string }) => ({ id: x.id, ...data(x as never) }));
    const ids = new Set(nodes.map((x: { id: string }) => x.id));
    expect(nodes.find((x: { id: string }) => x.id === 'cyr.test')).toMatchObject({ label: 'SZGU', kind: 'site', group: 'university' });
    const weights = graph.edge.map((e: { source: string; target: string }) => {
      expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
      return Number(data(e as never).weight);
    });
    expect(weights.reduce((a: number, b: number) => a + b, 0)).toBe(externalTotal());
    expect(keys.get('weight')).toMatchObject({ for: 'edge', 'attr.type': 'int' });
  });

  it('escapes XML in names a user or a page controls', async () => {
    const text = await exportTo(out('evil.gexf'), [], evilDb);
    const g = gexf.parse(GraphClass, text);
    const site = g.findNode((_n, a) => a.kind === 'site')!;
    expect(g.getNodeAttributes(site)).toMatchObject({ label: EVIL_SHORT, group: 'a<b' });
    expect(XMLValidator.validate(await exportTo(out('evil.graphml'), [], evilDb))).toBe(true);
  });
});

describe('export usage', () => {
  it('rejects contradictory options with one line and exit 2, and writes nothing', async () => {
    for (const args of [
      [out('x.gexf'), '--kind', 'edges'],
      [out('x.csv'), '--node', 'domain'],
      [out('x.csv'), '--kind', 'edges', '--site', '1'],
      [out('x.jsonl'), '--bom'],
      [out('x.graphml'), '--raw'],
      [out('x.csv'), '--since', 'soon'],
      [out('x.xlsx')],
    ]) {
      const r = await beebot(['export', ...args], { db });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(args[0]!)).toBe(false);
    }
  });

  it('a file it cannot write is one line, exit 1, and no .part left behind', async () => {
    const r = await beebot(['export', join(tmp.dir, 'no-such-dir', 'x.csv')], { db });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`beebot: cannot write ${join(tmp.dir, 'no-such-dir', 'x.csv')}: the folder ${join(tmp.dir, 'no-such-dir')} does not exist\n`);
    // a folder where the file should be
    const folder = join(tmp.dir, 'folder.csv');
    mkdirSync(folder);
    expect((await beebot(['export', folder], { db })).stderr).toBe(`beebot: cannot write ${folder}: it is a folder\n`);
    expect(readdirSync(tmp.dir).some((f) => f.endsWith('.part'))).toBe(false);
  });
});

describe('streaming', () => {
  /** Peak resident memory (KiB) of one `beebot export` of a database holding `rows` external links. */
  async function exportPeak(rows: number): Promise<number> {
    const file = join(tmp.dir, `big-${rows}.db`);
    expect((await beebot(['seeds', 'add', 'https://big.example/'], { db: file })).code).toBe(0);
    const d = new Database(file);
    d.exec(`WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ${rows})
      INSERT INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag, found_at)
      SELECT 1, 1, 'https://host-' || (n % 5000) || '.example/page/' || n, 'https://host-' || (n % 5000) || '.example/page/' || n,
             0, 'anchor text number ' || n || ' with some words to make a row of typical size', '', 'a', '2024-01-01T00:00:00.000Z' FROM i`);
    d.close();
    // A preload reports the process's peak RSS as it exits: no tool outside Node needed.
    const report = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))`;
    const child = spawn(process.execPath, ['--import', report, BIN, '--db', file, 'export', join(tmp.dir, `big-${rows}.csv`)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, stderr).toBe(0);
    const lines = readFileSync(join(tmp.dir, `big-${rows}.csv`), 'utf8').split('\r\n').length - 2;
    expect(lines).toBe(rows);
    return Number(/maxrss=(\d+)/.exec(stderr)![1]);
  }

  it('memory does not grow with the number of rows exported', async () => {
    const small = await exportPeak(20_000);
    const large = await exportPeak(200_000);
    // Held in memory, 180,000 more rows would take over 100 MB as JS arrays (~32 MB as text alone);
    // streamed, the peak moves only by V8's heap slack (measured: +16 MB here, +11 MB more at 1,000,000 rows).
    expect(large - small).toBeLessThan(40 * 1024);
  });
});

describe('cell rules (pure)', () => {
  it('neutralizes exactly the OWASP formula triggers', () => {
    for (const v of ['=1', '+1', '-1', '@a', '\tx', '\rx', '\uFF1D1', '\uFF0B1', '\uFF0D1', '\uFF20a']) expect(neutralizeFormula(v)).toBe(`'${v}`);
    for (const v of ['', 'a=1', ' =1', 'http://x/?a=-1', "'=1"]) expect(neutralizeFormula(v)).toBe(v);
  });
});
