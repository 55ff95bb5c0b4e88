// A site the scheduler barely crawled while pages were queued is named, through the real CLI: in
// the crawl's summary, in status and in the report, so nobody reads its counts as "links to nothing".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { servePages } from '../helpers/page-server.js';
import { beebot, tempDir } from '../helpers/cli.js';

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
});
