// Integration: the network of a crawl's sites, through the real CLI: the site-to-site interlinks and
// the co-links as CSV exports, checked against counts made from the hand-made web's own link list.
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { colinks } from '../src/site-graph/colinks.js';
import { interlinkMatrix, interlinks } from '../src/site-graph/interlinks.js';
import { beebot, tempDir } from './helpers/cli.js';
import { crawlLinkedWeb, expectedColinks, expectedInterlinks } from './helpers/linked-web.js';

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
