// Levels stay breadth-first levels whatever order the pages were fetched in: a page first found on
// a deeper path (its real parent in flight, or failed and fetched later) moves up when the parent
// is stored, and its fetched descendants and their external links follow. On both stores.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../src/db/db.js';
import { Frontier } from '../src/store/frontier.js';
import type { PullResult } from '../src/store/pull-record.js';
import { PullWriter } from '../src/store/pull-writer.js';
import { insertSites } from '../src/store/sites.js';
import { urlKey } from '../src/url/url.js';
import { tempDir } from './helpers/cli.js';
import { createDatabase, startPostgres, type PgCluster } from './helpers/postgres.js';

const tmp = tempDir();
let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  tmp.cleanup();
});

const A = 'https://a.example';
const key = (path: string) => urlKey(new URL(A + path), 'standard');

function pullOf(id: number, path: string, level: number, internal: string[], external: string[] = []): PullResult {
  return {
    page: { id, siteId: 1, url: A + path, level }, final: null, status: 'done', httpStatus: 200, contentType: 'text/html', bytes: 1,
    encoding: 'utf-8', encodingSource: 'meta', error: null, hops: [], ms: 1, retries: 0, note: null, unavailable: null,
    links: {
      internal: internal.map((p) => ({ url: A + p, key: key(p) })),
      external: external.map((u) => ({ url: u, key: urlKey(new URL(u), 'standard'), host: new URL(u).host, anchor: '', rel: '', tag: 'a' })),
      bad: [],
    },
  };
}

/** /a's link to /x comes last: /x, /y and /z were stored two levels too deep through /b → /c. */
function crawlOutOfOrder(d: Db) {
  insertSites(d, [{ url: new URL(A + '/') }], 'standard');
  const w = new PullWriter(d);
  const id = (path: string) => d.prepare('SELECT id FROM pages WHERE key = ?').pluck().get(key(path)) as number;
  const pull = (path: string, internal: string[], external: string[] = []) => {
    const level = d.prepare('SELECT level FROM pages WHERE key = ?').pluck().get(key(path)) as number;
    w.commit(pullOf(id(path), path, level, internal, external));
    w.group.flush();
  };
  pull('/', ['/a', '/b']);
  pull('/b', ['/c']);
  pull('/c', ['/x']);
  pull('/x', ['/y'], ['https://out.example/x']);
  pull('/y', ['/z']);
  const before = levels(d);
  pull('/a', ['/x']);
  return { before, after: levels(d), id };
}

const levels = (d: Db) => Object.fromEntries((d.prepare('SELECT key, level FROM pages ORDER BY id').raw().all() as [string, number][]).map(([k, l]) => [new URL(k).pathname, l]));

const stores: [string, () => Promise<string>][] = [
  ['SQLite', async () => join(tmp.dir, 'levels.db')],
  ['PostgreSQL', () => createDatabase(cluster)],
];

describe('breadth-first levels after an out-of-order crawl', () => {
  for (const [name, target] of stores) {
    it(`${name}: the page, its fetched descendants and their external links move up; a queued page moved within max-level is next`, async () => {
      const d = openDb(await target());
      try {
        const { before, after, id } = crawlOutOfOrder(d);
        expect(before).toMatchObject({ '/x': 3, '/y': 4, '/z': 5 });
        expect(after).toEqual({ '/': 0, '/a': 1, '/b': 1, '/c': 2, '/x': 2, '/y': 3, '/z': 4 });
        expect(d.prepare('SELECT found_on FROM pages WHERE id = ?').pluck().get(id('/x'))).toBe(id('/a'));
        expect(d.prepare('SELECT level FROM external_links').pluck().all()).toEqual([2]);
        // max-level 4: /z was beyond it, now it is the site's next page
        expect(new Frontier(d).nextPage(1, 4)?.url).toBe(A + '/z');
      } finally {
        d.close();
      }
    }, 60_000);
  }
});
