// Through an HTTP proxy, the plain-HTTP pages of every site share one pool of connections to the
// proxy (net/http.ts): a crawl of 40 sites does not open (and keep) connections for each of them.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBenchWeb, type BenchWeb } from '../../bench/web-server.js';
import { siteHost } from '../../bench/web.js';
import { beebot, tempDir } from '../helpers/cli.js';

const SITES = 40;
const tmp = tempDir();
let web: BenchWeb;
beforeAll(async () => {
  web = await startBenchWeb({ sites: SITES, pagesPerSite: 20, soloPages: 0, fanout: 1000, seed: 1 });
});
afterAll(async () => {
  await web.close();
  tmp.cleanup();
});

describe('a crawl through an HTTP proxy', () => {
  it('fetches every site over a few connections to the proxy, not two a site', async () => {
    const db = join(tmp.dir, 'proxy.db');
    const seeds = join(tmp.dir, 'seeds.txt');
    writeFileSync(seeds, Array.from({ length: SITES }, (_, i) => `http://${siteHost(i)}:${web.port}/`).join('\n'));
    expect((await beebot(['seeds', 'import', seeds], { db })).code).toBe(0);
    const r = await beebot(['crawl', '--proxy', `http://127.0.0.1:${web.port}`, '--delay', '0', '--concurrency', '4', '--budget', String(2 * SITES)], { db });
    expect(r.code, r.stderr).toBe(0);
    const status = JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: { pages_fetched: number }[] };
    expect(status.sites.filter((s) => s.pages_fetched > 0).length).toBe(SITES);
    // each site's robots.txt and pages, 120 requests and more, over at most a few connections a worker
    expect(web.counters.requests).toBeGreaterThanOrEqual(3 * SITES);
    expect(web.counters.connections).toBeLessThanOrEqual(4 * 2);
  });
});
