// Hostile sites that need a server of their own (the hostile web of fixtures/hostile.ts serves one
// well-behaved robots.txt and one start page): the real CLI crawls each on loopback.
import { createServer, request, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCounting, type CountingSite } from '../helpers/counting-site.js';
import { beebot, tempDir, type CliResult } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

type Site = CountingSite;
const serve = serveCounting;

const html = (res: ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>${body}</body></html>`);

/** Seed, configure and crawl `host` (resolved to the site), killed after `watchdogMs`. */
async function crawl(db: string, site: Site, host: string, config: Record<string, string>, watchdogMs: number, args: string[] = []): Promise<CliResult & { ms: number }> {
  expect((await beebot(['seeds', 'add', `http://${host}:${site.port}/`], { db })).code).toBe(0);
  for (const [k, v] of Object.entries({ delay: '0', ...config })) expect((await beebot(['config', 'set', k, v], { db })).code).toBe(0);
  const t0 = performance.now();
  const run = beebot(['crawl', '--resolve', `${host}:${site.port}:127.0.0.1`, ...args], { db });
  const watchdog = setTimeout(() => run.child.kill('SIGKILL'), watchdogMs);
  const r = await run;
  clearTimeout(watchdog);
  return { ...r, ms: performance.now() - t0 };
}

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp?.cleanup());

describe('a robots.txt trickled a byte at a time', () => {
  let site: Site;
  let run: CliResult & { ms: number };
  const db = () => join(tmp.dir, 'trickle.db');

  beforeAll(async () => {
    // Every byte comes well within body-timeout (per chunk), so only a deadline on the whole file ends it.
    site = await serve((path, res, every) => {
      if (path !== '/robots.txt') return html(res, '<a href="/a">a</a>');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      every(250, () => res.write('#'));
    });
    run = await crawl(db(), site, 'trickle.test', { 'page-timeout': '1500', 'body-timeout': '1000', 'headers-timeout': '1000' }, 20_000);
  }, 60_000);
  afterAll(() => site?.close());

  it('ends at the page deadline instead of hanging', () => {
    expect(run.signal, `the crawl hung until the watchdog killed it; stderr: ${run.stderr.slice(-500)}`).toBeNull();
    expect(run.code, run.stderr).toBe(1); // nothing could be reached in this run
    expect(run.stderr).toMatch(/^beebot: nothing could be reached in this run/m);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.ms).toBeLessThan(15_000);
  });

  it('treats the timed-out file as unreadable: nothing of the site is fetched for now', () => {
    expect(site.hits('/robots.txt')).toBeGreaterThanOrEqual(1);
    expect(site.hits('/')).toBe(0);
    const [s] = rows<{ unavailable: string | null }>(db(), 'SELECT unavailable FROM sites');
    expect(s!.unavailable).toMatch(/robots\.txt unreachable \(page-timeout\)/);
  });
});

describe('max-links-per-page counts distinct links, external first', () => {
  let site: Site;
  let run: CliResult & { ms: number };
  const db = () => join(tmp.dir, 'links.db');
  const other = (i: number) => `<a href="http://other${i}.example/">o</a>`;

  beforeAll(async () => {
    site = await serve((path, res) => {
      // One external link 10,000 times, then the one way into the site.
      if (path === '/') return html(res, `${other(0).repeat(10_000)}<a href="/inner">inner</a> <a href="/wide">wide</a>`);
      if (path === '/inner') return html(res, '<a href="/behind-inner">deeper</a>');
      // More distinct links than the cap: external ones are kept, the internal one last on the page is not.
      if (path === '/wide') return html(res, `${Array.from({ length: 150 }, (_, i) => other(i + 1)).join('')}<a href="/behind-wide">deeper</a>`);
      if (path === '/behind-inner' || path === '/behind-wide') return html(res, '<p>found</p>');
      res.writeHead(404).end();
    });
    run = await crawl(db(), site, 'links.test', { 'max-links-per-page': '100' }, 60_000);
  }, 90_000);
  afterAll(() => site?.close());

  it('finishes', () => {
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
  });

  const status = (path: string) =>
    rows<{ status: string }>(db(), 'SELECT status FROM pages WHERE url = ?', `http://links.test:${site.port}${path}`)[0]?.status;
  const note = (path: string) =>
    rows<{ note: string | null }>(db(), 'SELECT f.note FROM fetches f JOIN pages p ON p.id = f.page_id WHERE p.url = ?', `http://links.test:${site.port}${path}`)[0]?.note;
  const externalRows = (path: string) =>
    rows<{ n: number }>(db(), 'SELECT count(*) AS n FROM external_links e JOIN pages p ON p.id = e.page_id WHERE p.url = ?', `http://links.test:${site.port}${path}`)[0]!.n;

  it('a link repeated 10,000 times counts once: the internal links after it are kept, nothing is capped', () => {
    expect(status('/inner')).toBe('done');
    expect(status('/behind-inner')).toBe('done');
    expect(note('/')).toBeNull();
    expect(externalRows('/')).toBe(1);
  });

  it('over the cap, external links keep their place first and the note says what was dropped', () => {
    expect(note('/wide')).toBe('links-capped: 100 of 151 kept; dropped 50 external, 1 internal');
    expect(externalRows('/wide')).toBe(100);
    expect(status('/behind-wide')).toBeUndefined();
  });
});

describe('a page of 200,000 links under the default cap of 10,000', () => {
  let site: Site;
  let run: CliResult & { ms: number };
  const db = () => join(tmp.dir, 'crowd.db');
  // Interleaved: 150,000 external over 1,000 hosts, 40,000 internal images, 10,000 mailto.
  const crowd = Array.from({ length: 200_000 }, (_, i) => {
    const k = i % 20;
    if (k < 15) return `<a href=http://h${i % 1000}.test/${i}></a>`;
    return k < 19 ? `<a href=/i/${i}.png></a>` : `<a href=mailto:a${i}@x.test></a>`;
  }).join('');

  beforeAll(async () => {
    site = await serve((path, res) => (path === '/' ? html(res, crowd) : res.writeHead(404).end()));
    run = await crawl(db(), site, 'crowd.test', {}, 90_000);
  }, 120_000);
  afterAll(() => site?.close());

  it('keeps 10,000 external links, not the images or the mailto links, and says what was dropped', () => {
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(rows<{ n: number }>(db(), 'SELECT count(*) AS n FROM external_links')[0]!.n).toBe(10_000);
    expect(rows<{ n: number }>(db(), "SELECT count(*) AS n FROM pages WHERE status = 'file'")[0]!.n).toBe(0);
    const [f] = rows<{ note: string | null }>(db(), 'SELECT note FROM fetches');
    expect(f!.note).toBe('links-capped: 10000 of 200000 kept; dropped 140000 external, 40000 files, 10000 bad');
  });
});

describe('through --proxy, a server that never answers', () => {
  let site: Site;
  let proxy: Site;
  let run: CliResult & { ms: number };
  const db = () => join(tmp.dir, 'proxy.db');

  beforeAll(async () => {
    site = await serve((path, res) => {
      if (path === '/') return html(res, '<a href="/hang">hang</a>');
      if (path === '/hang') return; // headers never come
      res.writeHead(404).end();
    });
    // A plain HTTP proxy: forwards each absolute-form request to the site.
    proxy = await serve((_path, res) => {
      const req = res.req;
      const up = request({ host: '127.0.0.1', port: site.port, path: new URL(req.url!).pathname, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      res.on('close', () => up.destroy());
      up.end();
    });
    // One attempt, no retry later (net/failure-rule.ts): the timeout is stored as the page's error at once.
    const config = { 'page-timeout': '30000', 'headers-timeout': '1000', retries: '0', 'retry-attempts': '1', 'retry-span': '0' };
    run = await crawl(db(), site, 'hang.test', config, 60_000, ['--proxy', `http://127.0.0.1:${proxy.port}`]);
  }, 90_000);
  afterAll(() => Promise.all([proxy?.close(), site?.close()]));

  it('stores the page as a headers-timeout, long before the page deadline', () => {
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(site.hits('/hang')).toBe(1);
    const [f] = rows<{ error: string | null }>(db(), "SELECT f.error FROM fetches f JOIN pages p ON p.id = f.page_id WHERE p.url LIKE '%/hang'");
    expect(f!.error).toMatch(/^headers-timeout/);
    expect(run.ms).toBeLessThan(15_000);
  });
});

describe('a robots.txt of 2,392 pathological wildcard rules', () => {
  let site: Site;
  let run: CliResult & { ms: number };
  const db = () => join(tmp.dir, 'wild.db');
  const long = (i: number) => `/${'a'.repeat(1900)}${i}`;
  // 500 KiB of `/*a*a*…*b`: a per-character position-set matcher takes seconds per 1,900-character URL.
  const robots = `User-agent: *\n${Array.from({ length: 2392 }, (_, i) => `Disallow: /${'*a'.repeat(100 + (i % 7))}*b\n`).join('')}`;

  beforeAll(async () => {
    site = await serve((path, res) => {
      if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
      if (path === '/') return html(res, Array.from({ length: 20 }, (_, i) => `<a href="${long(i)}">p</a>`).join(''));
      html(res, '<p>leaf</p>');
    });
    run = await crawl(db(), site, 'wild.test', {}, 120_000);
  }, 150_000);
  afterAll(() => site?.close());

  it('crawls the site with the rules applied, the matcher costing little', () => {
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(rows<{ n: number }>(db(), "SELECT count(*) AS n FROM pages WHERE status = 'done'")[0]!.n).toBe(21);
    // Before: 2-2.7 s of matching per URL, over 40 s for these 20.
    expect(run.ms).toBeLessThan(15_000);
  });
});

describe('a page of a million unclosed <div>, crawled beside a healthy site', () => {
  let nest: Site;
  let healthy: Site;
  let run: CliResult & { ms: number };
  const db = () => join(tmp.dir, 'nest.db');
  const deep = Buffer.from(`<html><body>${'<div>'.repeat(1_000_000)}`);

  beforeAll(async () => {
    nest = await serve((path, res) => {
      if (path === '/') return html(res, '<a href="/x">x</a>');
      res.writeHead(200, { 'content-type': 'text/html' }).end(deep);
    });
    healthy = await serve((path, res) => {
      html(res, path === '/' ? Array.from({ length: 10 }, (_, i) => `<a href="/p${i + 1}">p</a>`).join('') : 'leaf');
    });
    for (const [host, site] of [['nest.test', nest], ['ok.test', healthy]] as const) {
      expect((await beebot(['seeds', 'add', `http://${host}:${site.port}/`], { db: db() })).code).toBe(0);
    }
    for (const [k, v] of Object.entries({ delay: '0', 'page-timeout': '20000' })) expect((await beebot(['config', 'set', k, v], { db: db() })).code).toBe(0);
    const t0 = performance.now();
    const child = beebot(['crawl', '--resolve', `nest.test:${nest.port}:127.0.0.1`, '--resolve', `ok.test:${healthy.port}:127.0.0.1`], { db: db() });
    const watchdog = setTimeout(() => child.child.kill('SIGKILL'), 90_000); // before: the parse alone took 6 minutes
    run = { ...(await child), ms: performance.now() - t0 };
    clearTimeout(watchdog);
  }, 120_000);
  afterAll(() => Promise.all([nest?.close(), healthy?.close()]));

  it('finishes in bounded time', () => {
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.ms).toBeLessThan(20_000);
  });

  it('stores the nested page as an error that says why, and every healthy page normally', () => {
    const page = (url: string) =>
      rows<{ status: string; error: string | null }>(db(), 'SELECT p.status, f.error FROM pages p JOIN fetches f ON f.page_id = p.id WHERE p.url = ?', url)[0];
    expect(page(`http://nest.test:${nest.port}/x`)).toEqual({ status: 'error', error: 'too-deep: markup nested more than 1024 elements' });
    for (let n = 0; n <= 10; n++) {
      expect(page(`http://ok.test:${healthy.port}/${n ? `p${n}` : ''}`), `page ${n}`).toEqual({ status: 'done', error: null });
    }
  });
});

describe('statuses that are no HTTP answer to a GET: 999 and 101 Switching Protocols', () => {
  let site: Site;
  let runs: CliResult[];
  const db = () => join(tmp.dir, 'status.db');

  beforeAll(async () => {
    site = await serve((path, res, _every, req) => {
      if (path === '/') return html(res, '<a href="/s999">999</a> <a href="/s101">101</a> <a href="/ok">ok</a>');
      if (path === '/s999') return res.writeHead(999, { 'content-type': 'text/html' }).end('<p>request denied</p>');
      // An upgrade nobody asked for: the socket is no longer HTTP.
      if (path === '/s101') return void req.socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      html(res, '<p>fine</p>');
    });
    runs = [await crawl(db(), site, 'status.test', {}, 60_000)];
    const again = beebot(['crawl', '--resolve', `status.test:${site.port}:127.0.0.1`], { db: db() });
    const watchdog = setTimeout(() => again.child.kill('SIGKILL'), 60_000);
    runs.push(await again);
    clearTimeout(watchdog);
  }, 150_000);
  afterAll(() => site?.close());

  it('stores each as the page\'s own error, asked once, in this run and the next', () => {
    for (const run of runs) {
      expect(run.signal).toBeNull();
      expect(run.code, run.stderr).toBe(0);
    }
    expect(site.hits('/s999')).toBe(1);
    expect(site.hits('/s101')).toBe(1);
    const page = (path: string) =>
      rows<{ status: string; error: string | null }>(db(), 'SELECT p.status, f.error FROM pages p JOIN fetches f ON f.page_id = p.id WHERE p.url = ?', `http://status.test:${site.port}${path}`);
    expect(page('/s999')).toEqual([{ status: 'error', error: 'HTTP 999' }]);
    expect(page('/s101')).toEqual([{ status: 'error', error: expect.stringMatching(/^bad-response: /) }]);
    expect(page('/ok')).toEqual([{ status: 'done', error: null }]);
  });
});

describe('robots.txt: more than five redirects, and a gzip bomb', () => {
  let loop: Site;
  let bomb: Site;
  const runs: Record<string, CliResult & { ms: number }> = {};
  const db = (name: string) => join(tmp.dir, `robots-${name}.db`);
  const pages = (res: ServerResponse, path: string) => html(res, path === '/' ? '<a href="/a">a</a> <a href="/private/b">b</a>' : '<p>leaf</p>');

  beforeAll(async () => {
    // Every hop a new URL: /robots.txt → /r1 → /r2 → … without end.
    loop = await serve((path, res) => {
      if (path === '/robots.txt' || path.startsWith('/r')) {
        return res.writeHead(302, { location: `/r${Number(path.slice(2)) + 1 || 1}` }).end();
      }
      pages(res, path);
    });
    // Its rules first, then 64 MiB of comment lines: about 64 KB on the wire.
    const rules = Buffer.from('User-agent: *\nDisallow: /private/\n');
    const padded = zlib.gzipSync(Buffer.concat([rules, Buffer.alloc(64 * 1024 * 1024 - rules.length, '# nothing to see here\n')]), { level: 9 });
    bomb = await serve((path, res) => {
      if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(padded);
      pages(res, path);
    });
    runs.loop = await crawl(db('loop'), loop, 'loop.test', {}, 60_000);
    runs.bomb = await crawl(db('bomb'), bomb, 'bomb.test', {}, 60_000);
  }, 150_000);
  afterAll(() => Promise.all([loop?.close(), bomb?.close()]));

  const status = (name: string, port: number, path: string) =>
    rows<{ status: string }>(db(name), 'SELECT status FROM pages WHERE url = ?', `http://${name}.test:${port}${path}`)[0]?.status;

  it('more than five redirects: the file is unavailable, so everything is allowed (as a 4xx)', () => {
    expect(runs.loop!.signal).toBeNull();
    expect(runs.loop!.code, runs.loop!.stderr).toBe(0);
    expect(loop.hits('/r5')).toBe(1);
    expect(loop.hits('/r6')).toBe(0);
    for (const path of ['/', '/a', '/private/b']) expect(status('loop', loop.port, path), path).toBe('done');
  });

  it('a file inflating past the cap: its first 500 KiB are parsed, the rules in them kept', () => {
    expect(runs.bomb!.signal).toBeNull();
    expect(runs.bomb!.code, runs.bomb!.stderr).toBe(0);
    expect(status('bomb', bomb.port, '/a')).toBe('done');
    expect(status('bomb', bomb.port, '/private/b')).toBe('robots-denied');
  });
});
