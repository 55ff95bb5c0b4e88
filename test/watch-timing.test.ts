// `beebot watch` against a loopback hub the test publishes on: an item published while a check's
// answer is on its way gets an appearance interval that holds its true time, and `watch model`
// counts the items of a group watched for less than a few hours.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenLoopback } from '../fixtures/listen.js';
import { beebot, tempDir } from './helpers/cli.js';
import { rows } from './helpers/read-db.js';

/**
 * A home page linking the hub /hub/, which lists the items published so far (/hub/i1, ...). The
 * hub's answer is made when its request arrives and sent `delayMs` later; `publishDuringNext`
 * publishes one item halfway through the next hub answer's delay (after the page was made).
 */
async function hubSite() {
  const published: { path: string; at: number }[] = [];
  const publish = () => published.push({ path: `/hub/i${published.length + 1}`, at: Date.now() });
  const o = { delayMs: 0, publishDuringNext: false };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const html = (b: string) => `<html><body>${b}</body></html>`;
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('<a href="/hub/">hub</a>'));
    if (path === '/hub/') {
      const page = html(published.map((p) => `<a href="${p.path}">item</a>`).join(' ') || '<p>nothing yet</p>');
      if (o.publishDuringNext) {
        o.publishDuringNext = false;
        setTimeout(publish, o.delayMs / 2);
      }
      return void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page), o.delayMs);
    }
    if (published.some((p) => p.path === path)) return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('<p>an item</p>'));
    res.writeHead(404).end();
  });
  const port = await listenLoopback(server);
  return {
    port, published, publish, o,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

interface ItemRow { url: string; found_at: number; from_t: number; to_t: number; point: number | null; source: string }

describe('beebot watch: check times and the model report', () => {
  let tmp: ReturnType<typeof tempDir>;
  let site: Awaited<ReturnType<typeof hubSite>>;
  let db: string;
  const via = () => ['--resolve', `site.test:${site.port}:127.0.0.1`, '--delay', '0'];
  const hub = () => `http://site.test:${site.port}/hub/`;

  beforeEach(async () => {
    tmp = tempDir();
    db = join(tmp.dir, 'w.db');
    site = await hubSite();
    expect((await beebot(['seeds', 'add', `http://site.test:${site.port}/`], { db })).code).toBe(0);
    const c = await beebot(['crawl', '--budget', 'none', '--concurrency', '1', ...via()], { db });
    expect(c.code, c.stderr).toBe(0);
    expect((await beebot(['watch', 'add', hub()], { db })).code).toBe(0);
  });

  afterEach(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('an item published while the answer is delayed gets an interval holding its true time: a check counts from its request', async () => {
    site.o.delayMs = 1500;
    site.o.publishDuringNext = true;
    const r = await beebot(['watch', '--schedule', 'fixed', '--interval', '1s', '--for', '4s', '--json', ...via()], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(site.published).toHaveLength(1);
    const items = rows<ItemRow>(db, 'SELECT url, found_at, from_t, to_t, point, source FROM watch_items');
    expect(items.map((i) => new URL(i.url).pathname)).toEqual(['/hub/i1']);
    const [it] = items;
    const truth = site.published[0]!.at;
    expect(it!.from_t, `published ${truth}, interval (${it!.from_t}, ${it!.to_t}]`).toBeLessThan(truth);
    expect(it!.to_t).toBeGreaterThanOrEqual(truth);
    // the lower bound is the previous check's time: its request, sent before the item was published
    const checks = rows<{ at: number }>(db, 'SELECT at FROM watch_checks ORDER BY seq');
    expect(checks.length).toBeGreaterThanOrEqual(2);
    expect(it!.from_t).toBe(checks[0]!.at);
    expect(it!.to_t).toBe(it!.found_at);
  });

  it('watch model counts the items of a group watched for less than five hours', async () => {
    site.publish();
    site.publish();
    site.publish();
    const r = await beebot(['watch', '--schedule', 'fixed', '--interval', '1h', '--for', '1s', '--json', ...via()], { db });
    expect(r.code, r.stderr).toBe(0);
    const n = rows<{ n: number }>(db, 'SELECT count(*) AS n FROM watch_items')[0]!.n;
    expect(n).toBe(3);
    const m = await beebot(['watch', 'model', '--json'], { db });
    expect(m.code, m.stderr).toBe(0);
    const groups = (JSON.parse(m.stdout) as { groups: { group: string; items_30d: number; r2_cv: number | null }[] }).groups;
    expect(groups).toEqual([expect.objectContaining({ group: `site.test:${site.port}`, items_30d: 3, r2_cv: null })]);
    const table = await beebot(['watch', 'model'], { db });
    expect(table.stdout.trim().split('\n')[2]!.split('\t')[3]).toBe('3');
  });
});
