// The trap rules hold whatever the order a crawl takes pages in: each order meets a page's links
// in its own sequence (breadth-first stores them one by one, the ordered crawls score them all at
// once), and a query trap must be caught either way. The real CLI crawls one loopback site.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDERS } from '../../src/schedule/links/priority.js';
import { serveCounting, type CountingSite } from '../helpers/counting-site.js';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

const LISTS = 5_000;
const deep = `/d/${Array.from({ length: 30 }, (_, i) => `s${i}`).join('/')}`;
const long = `/long/${'x'.repeat(2_100)}`;
const loop = '/cal/a/b/a/b/a/b/';
/** Each trap the start page leads into, and one URL it stores unfetched. */
const TRAPS = { 'query-variants': '/list?page=4999', 'path-too-deep': deep, 'url-too-long': long, 'repeated-path-segments': loop } as const;

const page = (body: string) => `<!doctype html><html><body>${body}</body></html>`;

let tmp: ReturnType<typeof tempDir>;
let site: CountingSite;
beforeAll(async () => {
  tmp = tempDir();
  site = await serveCounting((path, res) => {
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(body));
    if (path === '/') {
      const lists = Array.from({ length: LISTS }, (_, i) => `<a href="/list?page=${i}">${i}</a>`).join('');
      return html(`<a href="${deep}">deep</a><a href="${long}">long</a><a href="${loop}">loop</a>${lists}`);
    }
    // Each list page answers, linking out so that the ordered crawls find it worth pulling.
    if (path === '/list') return html('<a href="http://elsewhere.test/">out</a>');
    res.writeHead(404).end();
  });
});
afterAll(async () => {
  await site?.close();
  tmp?.cleanup();
});

describe.each(ORDERS)('--order %s', (order) => {
  const db = () => join(tmp.dir, `${order}.db`);
  let run: CliResult;
  let listHits: number;

  beforeAll(async () => {
    const before = site.hits('/list');
    expect((await beebot(['seeds', 'add', `http://trap.test:${site.port}/`], { db: db() })).code).toBe(0);
    const child = beebot(['crawl', '--order', order, '--budget', '3000', '--delay', '0', '--resolve', `trap.test:${site.port}:127.0.0.1`], { db: db() });
    const watchdog = setTimeout(() => child.child.kill('SIGKILL'), 100_000);
    run = await child;
    clearTimeout(watchdog);
    listHits = site.hits('/list') - before;
  }, 120_000);

  it('finishes', () => {
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
  });

  it.each(Object.entries(TRAPS))('%s: stored as a trap, never fetched', (trap, path) => {
    const [p] = rows<{ status: string; note: string | null }>(db(), 'SELECT status, note FROM pages WHERE url = ?', `http://trap.test:${site.port}${path}`);
    expect(p).toEqual({ status: 'trap', note: trap });
  });

  it('query-variants: the 5,000 list pages cost at most 110 pulls, the rest marked traps', () => {
    const pulls = rows<{ n: number }>(db(), 'SELECT count(*) AS n FROM fetches')[0]!.n;
    expect(pulls).toBeLessThanOrEqual(110);
    expect(listHits).toBeLessThanOrEqual(100);
    const traps = rows<{ n: number }>(db(), "SELECT count(*) AS n FROM pages WHERE status = 'trap' AND note = 'query-variants'")[0]!.n;
    expect(traps).toBe(LISTS - 100);
  });
});
