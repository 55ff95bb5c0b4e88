// Session ids in URLs: the rule (pure), a loopback site that puts a new id into every link, and a
// database crawled before the rule, which keeps its keys.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { migrations } from '../../src/db/migrations.js';
import { stripSessionIds } from '../../src/url/session-ids.js';
import { urlKey } from '../../src/url/url.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

const key = (s: string, keep = false) => urlKey(new URL(s), 'standard', keep ? 'keep' : 'strip');
const token = 'a'.repeat(16) + '0123456789abcdef'; // 32 characters

describe('session ids in link keys', () => {
  it('leaves session path parameters and query parameters out, whatever their case', () => {
    expect(key('http://h/s;jsessionid=0A1B2C/p')).toBe('http://h/s/p');
    expect(key('http://h/s;JSESSIONID=0A1B2C;v=2/p;bv_sessionid=77')).toBe('http://h/s;v=2/p');
    expect(key(`http://h/a?x=1&PHPSESSID=${token}&y=2`)).toBe('http://h/a?x=1&y=2');
    expect(key('http://h/a?ASPSESSIONIDAQBSDSRT=EOHBLBDDPFCLHKPGGKLILNAM')).toBe('http://h/a');
    expect(key('http://h/a?cfid=12&cftoken=34&page=2')).toBe('http://h/a?page=2');
    expect(key(`http://h/a?sid=${token}`)).toBe('http://h/a');
    expect(key('http://h/a?sessionid=x&_sid=y&jsid=z')).toBe('http://h/a?_sid=y&jsid=z');
  });
  it('keeps everything else as spelled: a short sid, other parameters, empty pieces', () => {
    for (const u of ['http://h/a?sid=3', 'http://h/a?side=1&consid=2', 'http://h/a;b=1/c', 'http://h/a?&x=1&&', 'http://h/a?session=1', 'http://h/sessionid=1/p']) {
      expect(key(u), u).toBe(u);
    }
    expect(stripSessionIds(new URL('http://h/a?x=1'))).toEqual(new URL('http://h/a?x=1'));
  });
  it("'keep' leaves them in, as a database crawled before the rule stored them", () => {
    expect(key('http://h/s;jsessionid=0A1B2C/p', true)).toBe('http://h/s;jsessionid=0A1B2C/p');
  });
});

describe('a site that puts a new session id into every link', () => {
  let port: number;
  let close: () => Promise<void>;
  let tmp: ReturnType<typeof tempDir>;
  const id = (n: number) => randomBytes(n / 2).toString('hex');
  beforeAll(async () => {
    tmp = tempDir();
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      const body =
        path === '/'
          ? `<a href="/s;jsessionid=${id(16)}/p">p</a> <a href="/q?PHPSESSID=${id(32)}&x=1">q</a> <a href="/about">about</a>`
          : path.startsWith('/s;jsessionid=')
            ? `<a href="/s;jsessionid=${id(16)}/p">again</a> <a href="/about">about</a>`
            : path.startsWith('/q?')
              ? `<a href="/q?x=1&PHPSESSID=${id(32)}">again</a>`
              : 'about';
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    port = await listenLoopback(server);
    close = () => new Promise((r) => server.close(() => r()));
  });
  afterAll(async () => {
    await close?.();
    tmp?.cleanup();
  });

  const crawl = async (db: string, budget: number) => {
    const r = await beebot(['crawl', '--budget', String(budget), '--max-level', '1000', '--delay', '0', '--resolve', `sess.test:${port}:127.0.0.1`], { db });
    expect(r.code, r.stderr).toBe(0);
  };

  it('fetches each page once: the ids are not part of its key', async () => {
    const db = join(tmp.dir, 'new.db');
    expect((await beebot(['seeds', 'add', `http://sess.test:${port}/`], { db })).code).toBe(0);
    await crawl(db, 200);
    const pages = rows<{ key: string }>(db, 'SELECT key FROM pages ORDER BY key').map((p) => p.key);
    expect(pages).toEqual([`http://sess.test:${port}/`, `http://sess.test:${port}/about`, `http://sess.test:${port}/q?x=1`, `http://sess.test:${port}/s/p`]);
    expect(rows(db, 'SELECT * FROM fetches')).toHaveLength(4);
  });

  it('a database crawled before the rule keeps session ids in its keys, and resumes under them', async () => {
    const db = join(tmp.dir, 'old.db');
    expect((await beebot(['seeds', 'add', `http://sess.test:${port}/`], { db })).code).toBe(0);
    expect((await beebot(['config', 'set', 'session-ids', 'keep'], { db })).code).toBe(0);
    await crawl(db, 6);
    // As an older beebot left it: the schema before the session-ids step (the later steps' columns
    // dropped), no session-ids setting.
    const d = new Database(db);
    d.prepare("DELETE FROM settings WHERE key = 'session-ids'").run();
    for (const c of ['scope', 'include', 'exclude', 'sitemaps', 'sitemaps_read']) d.exec(`ALTER TABLE sites DROP COLUMN ${c}`);
    d.exec('ALTER TABLE pages DROP COLUMN sitemap');
    d.exec('DROP INDEX pages_retry');
    d.exec('DROP TABLE queued_levels');
    for (const c of ['attempts', 'first_failed_at', 'retry_at']) d.exec(`ALTER TABLE pages DROP COLUMN ${c}`);
    for (const c of ['failures', 'unavailable_at', 'sitemap_files', 'sitemap_problems']) d.exec(`ALTER TABLE sites DROP COLUMN ${c}`);
    d.pragma(`user_version = ${migrations.findIndex((m) => m.includes("'session-ids'"))}`);
    d.close();
    const got = await beebot(['config', 'get', 'session-ids'], { db });
    expect(got.stdout).toBe('keep\n');
    const before = rows<{ key: string }>(db, 'SELECT key FROM pages').map((p) => p.key);
    expect(before.filter((k) => k.includes(';jsessionid=')).length).toBeGreaterThan(0);
    await crawl(db, 10);
    const after = rows<{ key: string }>(db, 'SELECT key FROM pages').map((p) => p.key);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.some((k) => k.endsWith('/s/p'))).toBe(false);
    const frozen = await beebot(['config', 'set', 'session-ids', 'strip'], { db });
    expect(frozen.stderr).toMatch(/session-ids cannot change after the crawl has started/);
    expect(frozen.code).toBe(2);
  });
});
