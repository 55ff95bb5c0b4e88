// The store's own parts on a real SQLite file: the seen-set fingerprint, the schema-4 upgrade that
// rebuilds `pages`, and group commit (pages written together, each still atomic).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { PullWriter } from '../../src/store/pull-writer.js';
import type { PullResult } from '../../src/pull/pull-record.js';
import { openDb, sqliteOf } from '../../src/db/db.js';
import { fingerprint } from '../../src/url/key-hash.js';
import { GroupCommit } from '../../src/db/group-commit.js';
import { migrations } from '../../src/db/migrations.js';
import { insertSites } from '../../src/store/sites.js';
import { urlKey } from '../../src/url/url.js';
import { tempDir } from '../helpers/cli.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let n = 0;
const newDb = () => join(tmp.dir, `store-${++n}.db`);

describe('fingerprint', () => {
  it('is deterministic, 64-bit signed, and groups the keys of one directory', () => {
    const a = fingerprint('https://a.example/news/2024/item?id=1');
    expect(fingerprint('https://a.example/news/2024/item?id=1')).toEqual(a);
    expect(typeof a.fp).toBe('bigint');
    expect(a.fp >= -(2n ** 63n) && a.fp < 2n ** 63n).toBe(true);
    expect(Number.isInteger(a.dir) && a.dir >= 0 && a.dir < 2 ** 32).toBe(true);
    // the directory ends at the last '/' before the query; a '/' inside the query does not count
    expect(fingerprint('https://a.example/news/2024/other?next=/x/y').dir).toBe(a.dir);
    expect(fingerprint('https://a.example/news/2024/').dir).toBe(a.dir);
    expect(fingerprint('https://a.example/news/2025/item?id=1').dir).not.toBe(a.dir);
  });

  it('gives 200,000 similar keys 200,000 different fingerprints', () => {
    const seen = new Set<bigint>();
    for (let i = 0; i < 100_000; i++) {
      seen.add(fingerprint(`http://wide1.bench/l/${i >> 10}/${i & 1023}`).fp);
      seen.add(fingerprint(`https://b.example/item.php?id=${i}`).fp);
    }
    expect(seen.size).toBe(200_000);
  });
});

describe('schema 4 upgrade', () => {
  it('rebuilds pages with fingerprints and keeps every row that points at them', () => {
    const file = newDb();
    const old = new Database(file);
    for (const m of migrations.slice(0, 3)) old.exec(m);
    old.pragma('user_version = 3');
    old.exec(`
      INSERT INTO sites (id, url, added_at) VALUES (1, 'https://a.example/', '2024-01-01T00:00:00.000Z');
      INSERT INTO pages (id, site_id, key, url, level, status) VALUES (1, 1, 'https://a.example/', 'https://a.example/', 0, 'done');
      INSERT INTO pages (id, site_id, key, url, level, found_on, status, note) VALUES (2, 1, 'https://a.example/b?x=1', 'https://a.example/b?x=1', 1, 1, 'trap', 'query-variants');
      INSERT INTO pages (id, site_id, key, url, level, found_on) VALUES (3, 1, 'https://a.example/c', 'https://a.example/c', 1, 1);
      INSERT INTO fetches (seq, site_id, page_id, reward, ms, at) VALUES (1, 1, 1, 1, 5, '2024-01-02T03:04:05.000Z');
      INSERT INTO hops (fetch_seq, n, url, status) VALUES (1, 0, 'https://a.example/', 200);
      INSERT INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag) VALUES (1, 1, 'https://x.example/', 'https://x.example/', 0, 'X', '', 'a');
      INSERT INTO bad_links (site_id, page_id, raw, reason) VALUES (1, 1, 'mailto:a@a.example', 'mailto');
    `);
    old.close();

    const store = openDb(file);
    const d = sqliteOf(store);
    try {
      expect(d.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(d.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(d.pragma('foreign_key_check')).toEqual([]);
      const rows = d.prepare('SELECT id, key, dir, fp, found_on, status, note FROM pages ORDER BY id').safeIntegers(true).all() as {
        id: bigint; key: string; dir: bigint; fp: bigint; found_on: bigint | null; status: string; note: string | null;
      }[];
      expect(rows.map((r) => [Number(r.id), r.found_on === null ? null : Number(r.found_on), r.status, r.note])).toEqual([
        [1, null, 'done', null], [2, 1, 'trap', 'query-variants'], [3, 1, 'queued', null],
      ]);
      for (const r of rows) expect([Number(r.dir), r.fp]).toEqual([fingerprint(r.key).dir, fingerprint(r.key).fp]);
      for (const table of ['fetches', 'hops', 'external_links', 'bad_links']) {
        expect(d.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(1);
      }
      // the upgraded seen-set is the crawl's: a known link is not stored twice, a new one is
      const w = new PullWriter(store);
      w.commit(pullOf(3, 'https://a.example/c', ['https://a.example/', 'https://a.example/c', 'https://a.example/d']));
      w.group.flush();
      // schema 5 spells every key with http: (one page under both schemes)
      expect(d.prepare('SELECT key FROM pages ORDER BY id').pluck().all()).toEqual([
        'http://a.example/', 'http://a.example/b?x=1', 'http://a.example/c', 'http://a.example/d',
      ]);
    } finally {
      d.close();
    }
  });
});

function pullOf(id: number, url: string, internal: string[], level = 1): PullResult {
  return {
    page: { id, siteId: 1, url, level }, final: null, status: 'done', httpStatus: 200, contentType: 'text/html', bytes: 1,
    encoding: 'utf-8', encodingSource: 'meta', error: null, hops: [], ms: 1, retries: 0, note: null, unavailable: null,
    links: { internal: internal.map((u) => ({ url: u, key: urlKey(new URL(u), 'standard') })), external: [], bad: [] },
  };
}

describe('PullWriter', () => {
  it('stores a link once, and moves a queued page up when it is found nearer the start', () => {
    const d = openDb(newDb());
    try {
      insertSites(d, [{ url: new URL('https://a.example/') }], 'standard');
      const w = new PullWriter(d);
      const levelOf = (key: string) => d.prepare('SELECT level FROM pages WHERE key = ?').pluck().get(key);
      // a level-3 page finds /deep (level 4), then the start page finds it again (level 1)
      w.commit(pullOf(1, 'https://a.example/', ['https://a.example/x'], 0));
      const x = d.prepare("SELECT id FROM pages WHERE key = 'http://a.example/x'").pluck().get() as number;
      d.prepare('UPDATE pages SET level = 3 WHERE id = ?').run(x);
      w.commit(pullOf(x, 'https://a.example/x', ['https://a.example/deep', 'https://a.example/deep'], 3));
      expect(levelOf('http://a.example/deep')).toBe(4);
      d.prepare("UPDATE pages SET status = 'queued' WHERE id = 1").run();
      w.commit(pullOf(1, 'https://a.example/', ['https://a.example/deep'], 0));
      expect(levelOf('http://a.example/deep')).toBe(1);
      expect(d.prepare("SELECT count(*) FROM pages WHERE key = 'http://a.example/deep'").pluck().get()).toBe(1);
    } finally {
      d.close();
    }
  });
});

describe('GroupCommit', () => {
  const setup = () => {
    const file = newDb();
    const d = openDb(file);
    d.exec('CREATE TABLE t (v INTEGER)');
    const reader = new Database(file, { readonly: true });
    const committed = () => reader.prepare('SELECT count(*) FROM t').pluck().get();
    return { d, reader, committed, insert: d.prepare('INSERT INTO t (v) VALUES (?)') };
  };

  it('commits every maxPages pages, and on flush', () => {
    const { d, reader, committed, insert } = setup();
    try {
      const g = new GroupCommit(d, 3, 60_000);
      g.write(() => insert.run(1));
      g.write(() => insert.run(2));
      expect(committed()).toBe(0); // another connection sees nothing yet
      g.write(() => insert.run(3));
      expect(committed()).toBe(3);
      g.write(() => insert.run(4));
      expect(committed()).toBe(3);
      g.flush();
      expect(committed()).toBe(4);
      expect(d.inTransaction).toBe(false);
    } finally {
      reader.close();
      d.close();
    }
  });

  it('commits an open group after maxMs even when no more pages come', async () => {
    const { d, reader, committed, insert } = setup();
    try {
      const g = new GroupCommit(d, 1000, 50);
      g.write(() => insert.run(1));
      expect(committed()).toBe(0);
      for (let i = 0; i < 100 && committed() === 0; i++) await sleep(20);
      expect(committed()).toBe(1);
    } finally {
      reader.close();
      d.close();
    }
  });

  it('rolls back only the page that failed; the group goes on', () => {
    const { d, reader, committed, insert } = setup();
    try {
      const g = new GroupCommit(d, 1000, 60_000);
      g.write(() => insert.run(1));
      expect(() =>
        g.write(() => {
          insert.run(2);
          throw new Error('page broke half way');
        }),
      ).toThrow('page broke half way');
      g.write(() => insert.run(3));
      g.flush();
      expect(committed()).toBe(2);
      expect(reader.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([1, 3]);
    } finally {
      reader.close();
      d.close();
    }
  });
});
