// A site the scheduler barely crawled while pages were queued is named, through the real CLI: in
// the crawl's summary, in status and in the report, so nobody reads its counts as "links to nothing".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { servePages } from '../helpers/page-server.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { openDb } from '../../src/db/db.js';
import { barelyCrawledLines, readStatus, siteCoverage } from '../../src/store/status.js';
import { writeSetting } from '../../src/store/settings.js';

const tmp = tempDir();
let server: Awaited<ReturnType<typeof servePages>>;

// rich{1,2,3}.test: a start page and 30 pages, each with two external links of its own.
// barren.test: a start page and 30 pages, none with an external link.
const pages: Record<string, string> = {};
for (const site of ['rich1', 'rich2', 'rich3', 'barren']) {
  const ext = (i: number) => (site === 'barren' ? '' : `<a href="http://out.test/${site}/${i}/a">a</a><a href="http://out.test/${site}/${i}/b">b</a>`);
  pages[`${site}.test/`] = Array.from({ length: 30 }, (_, i) => `<a href="/p${i}.html">page ${i}</a>`).join(' ') + ext(99);
  for (let i = 0; i < 30; i++) pages[`${site}.test/p${i}.html`] = `<p>page ${i}</p>${ext(i)}`;
}
// any other host: a start page linking two pages of its own
pages['/'] = '<a href="/a.html">a</a> <a href="/b.html">b</a>';

beforeAll(async () => {
  server = await servePages(pages, (b) => `<html><body>${b}</body></html>`);
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('a site barely crawled', () => {
  it('is named in the summary and in status, with its queued pages and how to crawl evenly', async () => {
    const db = join(tmp.dir, 'barely.db');
    const resolve = ['rich1', 'rich2', 'rich3', 'barren'].flatMap((s) => ['--resolve', `${s}.test:${server.port}:127.0.0.1`]);
    for (const s of ['rich1', 'rich2', 'rich3', 'barren']) expect((await beebot(['seeds', 'add', `http://${s}.test:${server.port}/`, '--short', s], { db })).code).toBe(0);
    // gittins with one-page steps: one page of every site, then the best mean: the barren site's start page is its only page
    const r = await beebot(['crawl', '--budget', '60', '--policy', 'gittins', '--step', '1', '--delay', '0', '--concurrency', '1', ...resolve], { db });
    expect(r.code, r.stderr).toBe(0);
    const line = 'barren: 1 page, 30 queued: the scheduler found better pages elsewhere; --policy round-robin crawls every site evenly';
    expect(r.stdout.split('\n')).toContain(line);
    const st = await beebot(['status'], { db });
    expect(st.stdout.split('\n')).toContain(line);
    const report = join(tmp.dir, 'barely.html');
    expect((await beebot(['report', report], { db })).code).toBe(0);
    expect(readFileSync(report, 'utf8')).toContain(`<p class="note">${line}</p>`);
    // the site the scheduler chose is not named
    const sites = JSON.parse((await beebot(['status', '--json'], { db })).stdout).sites as { short: string; pages_fetched: number }[];
    const chosen = sites.reduce((a, b) => (b.pages_fetched > a.pages_fetched ? b : a));
    expect(chosen.pages_fetched).toBeGreaterThan(30);
    expect(r.stdout).not.toContain(`${chosen.short}: `);
  });

  it("the summary's list (read from the sites and their queues alone) is status's, whatever the sites' states", async () => {
    const db = join(tmp.dir, 'states.db');
    const hosts = ['rich1', 'rich2', 'rich3', 'barren'];
    for (const s of hosts) expect((await beebot(['seeds', 'add', `http://${s}.test:${server.port}/`, '--short', s], { db })).code).toBe(0);
    // a start page that is not there: the site is Not Available
    expect((await beebot(['seeds', 'add', `http://gone.test:${server.port}/nothing.html`, '--short', 'gone'], { db })).code).toBe(0);
    const resolve = [...hosts, 'gone'].flatMap((s) => ['--resolve', `${s}.test:${server.port}:127.0.0.1`]);
    expect((await beebot(['crawl', '--budget', '60', '--policy', 'gittins', '--step', '1', '--delay', '0', '--concurrency', '1', ...resolve], { db })).code).toBe(0);
    const d = openDb(db);
    try {
      const lines = () => barelyCrawledLines(siteCoverage(d), 'gittins');
      expect(lines()).toContain('barren: 1 page, 30 queued: the scheduler found better pages elsewhere; --policy round-robin crawls every site evenly');
      expect(lines()).toEqual(barelyCrawledLines(readStatus(d), 'gittins'));
      // capped sites are not open; past max-level nothing is queued
      for (const [k, v] of [['max-pages-per-site', 1], ['max-pages-per-site', null], ['max-level', 0]] as const) {
        writeSetting(d, k, v);
        expect(lines()).toEqual(barelyCrawledLines(readStatus(d), 'gittins'));
      }
      expect(lines()).toEqual([]);
    } finally {
      d.close();
    }
  });

  it('past ten sites, the summary counts them in one line and names the command that lists them', async () => {
    const db = join(tmp.dir, 'many.db');
    const hosts = Array.from({ length: 24 }, (_, i) => `many${i}.test`);
    const seeds = join(tmp.dir, 'many.seeds');
    writeFileSync(seeds, hosts.map((h) => `http://${h}:${server.port}/`).join('\n'));
    expect((await beebot(['seeds', 'import', seeds], { db })).code).toBe(0);
    // a budget below the sites: most are never fetched while their start page waits
    const r = await beebot(['crawl', '--budget', '6', '--delay', '0', '--concurrency', '1', ...hosts.flatMap((h) => ['--resolve', `${h}:${server.port}:127.0.0.1`])], { db });
    expect(r.code, r.stderr).toBe(0);
    const listed = (await beebot(['status'], { db })).stdout.split('\n').filter((l) => l.includes('the scheduler found better pages elsewhere'));
    expect(listed.length).toBeGreaterThan(10);
    const said = r.stdout.split('\n').filter((l) => l.includes('the scheduler found better pages elsewhere'));
    expect(said).toEqual([
      `${listed.length} sites barely crawled (0 pages fetched, ${listed.length} queued among them): the scheduler found better pages elsewhere; --order bfs crawls every site evenly; beebot status lists them`,
    ]);
    expect(listed).toContain('many23.test: 0 pages, 1 queued: the scheduler found better pages elsewhere; --order bfs crawls every site evenly');
  });
});
