// The hostile test server (fixtures/hostile.ts) does what its kind table says, streams its big
// bodies instead of holding them, stops when the client goes away, and closes at once even with
// slow connections open. Plain node:http clients, no crawler code.
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import tls from 'node:tls';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_ROBOTS_TXT, hostileKinds, startHostileServer, type HostileServer } from '../../fixtures/hostile.js';
import { parseRobotsTxt } from '../../src/net/robots.js';

const MiB = 1024 * 1024;

// hostile.test → 127.0.0.1, as the crawler's --resolve does. Node 20 asks with {all: true}.
const lookup = (_host: string, opts: { all?: boolean }, cb: (e: Error | null, a: string | LookupAddress[], f?: number) => void) =>
  opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);

interface Got {
  status: number | null;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** the whole message arrived (as framed by Content-Length or chunking) */
  complete: boolean;
  /** request error code (or 'timeout') when no response came */
  error: string | null;
  /** we gave up after waitMs (the server neither finished nor hung up) */
  timedOut: boolean;
  /** ms from the response headers to the end of reading */
  ms: number;
}

/**
 * GET a path; read at most maxBytes of body and then hang up; give up after waitMs. `stallUntil`:
 * read nothing after the headers until it settles, so the server meets backpressure (a paused
 * client does not read, so it only notices the server hanging up once it reads again).
 */
function get(
  server: HostileServer,
  path: string,
  o: { maxBytes?: number; waitMs?: number; maxHeaderSize?: number; stallUntil?: Promise<unknown> } = {},
): Promise<Got> {
  const { maxBytes = Infinity, waitMs = 3000 } = o;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let got: Got = { status: null, headers: {}, body: Buffer.alloc(0), complete: false, error: null, timedOut: false, ms: 0 };
    let t0 = 0;
    let done = false;
    const finish = (patch: Partial<Got>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...got, body: Buffer.concat(chunks), ms: t0 ? performance.now() - t0 : 0, ...patch });
    };
    const timer = setTimeout(() => finish({ timedOut: true, ...(got.status === null ? { error: 'timeout' } : {}) }), waitMs);
    const req = http.get(server.url(path), { lookup: lookup as never, agent: false, maxHeaderSize: o.maxHeaderSize }, (res) => {
      t0 = performance.now();
      got = { ...got, status: res.statusCode ?? null, headers: res.headers };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= maxBytes) finish({});
      });
      res.on('error', () => undefined); // a reset mid-body; 'close' says how far we got
      res.on('close', () => finish({ complete: res.complete }));
      if (o.stallUntil) {
        res.pause();
        void o.stallUntil.then(() => res.resume());
      }
    });
    // After the headers, the response's 'close' decides: node reports junk after a complete
    // message (/length-too-short) as a request error before it delivers that message's body.
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (got.status === null) finish({ error: e.code ?? e.message });
    });
  });
}

/** Poll until the server has no open response (or give up after `ms`). */
async function settled(server: HostileServer, ms = 1000): Promise<number> {
  const end = Date.now() + ms;
  while (server.inFlight > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return server.inFlight;
}

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(() => server.close());

describe('the kind table and the start page', () => {
  it('has at least 25 kinds, each with a unique path and name and a reason', () => {
    expect(hostileKinds.length).toBeGreaterThanOrEqual(25);
    expect(new Set(hostileKinds.map((k) => k.path)).size).toBe(hostileKinds.length);
    expect(new Set(hostileKinds.map((k) => k.kind)).size).toBe(hostileKinds.length);
    for (const k of hostileKinds) expect(k.expect, k.kind).toMatch(/^[a-z0-9-]+$/);
  });

  it('links every kind and the ten good pages from /', async () => {
    const home = await get(server, '/');
    expect(home.status).toBe(200);
    const hrefs = new Set([...home.body.toString().matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&')));
    for (const k of hostileKinds) expect(hrefs, k.kind).toContain(k.href ? k.href(server.port) : k.path);
    for (let n = 1; n <= 10; n++) expect(hrefs).toContain(`/good/${n}.html`);
    expect(hostileKinds.find((k) => k.kind === 'tls-failure')!.href!(server.port)).toBe(`https://hostile.test:${server.port}/tls`);
  });

  it('serves every kind path (none is a 404) and the good pages link each other', async () => {
    const statuses = await Promise.all(hostileKinds.map(async (k) => [k.kind, (await get(server, k.path, { maxBytes: 1, waitMs: 300 })).status] as const));
    for (const [kind, status] of statuses) expect(status, kind).not.toBe(404);
    const good = await get(server, '/good/5.html');
    expect(good.status).toBe(200);
    expect(good.body.toString()).toMatch(/href="\/good\/4\.html".*href="\/good\/6\.html"/s);
    expect((await get(server, '/good/11.html')).status).toBe(404);
  });

  it('robots.txt allows everything but /private/, with Crawl-delay 0 (read by our own robots rules)', async () => {
    const r = await get(server, '/robots.txt');
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe(HOSTILE_ROBOTS_TXT);
    const rules = parseRobotsTxt(`http://hostile.test:${server.port}`, r.body);
    expect(rules.isAllowed(server.url('/private/secret.html'))).toBe(false);
    expect(hostileKinds.filter((k) => !k.href && k.path !== '/private/secret.html').every((k) => rules.isAllowed(server.url(k.path)))).toBe(true);
    expect(rules.crawlDelay).toBe(0);
  });
});

describe('redirects', () => {
  it('chains 20 hops, and never repeats in /redirect-forever', async () => {
    expect((await get(server, '/redirect-chain/20')).headers.location).toBe('/redirect-chain/19');
    expect((await get(server, '/redirect-chain/1')).headers.location).toBe('/redirect-chain/0');
    expect((await get(server, '/redirect-chain/0')).status).toBe(200);
    expect((await get(server, '/redirect-forever?n=41')).headers.location).toBe('/redirect-forever?n=42');
  });

  it('loops, leaves http, or forgets the Location', async () => {
    expect((await get(server, '/redirect-loop/a')).headers.location).toBe('/redirect-loop/b');
    expect((await get(server, '/redirect-loop/b')).headers.location).toBe('/redirect-loop/a');
    expect((await get(server, '/redirect-ftp')).headers.location).toMatch(/^ftp:\/\//);
    expect((await get(server, '/redirect-javascript')).headers.location).toBe('javascript:alert(1)');
    const none = await get(server, '/redirect-no-location');
    expect(none.status).toBe(301);
    expect(none.headers.location).toBeUndefined();
  });
});

describe('big bodies are streamed, and stop when the client hangs up', () => {
  it.each([
    ['/big-cl', 'text/html', String(12 * MiB)],
    ['/big-chunked', 'text/html', undefined],
    ['/attribute-50mb', 'text/html', undefined],
    ['/image-huge', 'image/png', String(100 * MiB)],
  ])('%s', async (path, type, length) => {
    const r = await get(server, path, { maxBytes: MiB });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(type);
    expect(r.headers['content-length']).toBe(length);
    if (length === undefined) expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.body.length).toBeGreaterThanOrEqual(MiB);
    expect(r.complete).toBe(false);
    if (path === '/image-huge') expect(r.body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(await settled(server)).toBe(0);
  });

  it.each([
    ['/gzip-bomb', 'gzip', () => zlib.createGunzip()],
    ['/br-bomb', 'br', () => zlib.createBrotliDecompress()],
    ['/deflate-bomb', 'deflate', () => zlib.createInflate()],
    ['/deflate-raw-bomb', 'deflate', () => zlib.createInflateRaw()],
  ])('%s is small on the wire and 20 MiB decoded', async (path, encoding, decoder) => {
    const r = await get(server, path);
    expect(r.headers['content-encoding']).toBe(encoding);
    expect(r.body.length).toBeLessThan(64 * 1024);
    let decoded = 0;
    const z = decoder();
    z.on('data', (c: Buffer) => (decoded += c.length));
    await new Promise((resolve, reject) => z.on('end', resolve).on('error', reject).end(r.body));
    expect(decoded).toBe(20 * MiB);
  });

  it('/many-links has 100,000 links, /attribute-5mb a link after its 5 MiB attribute', async () => {
    const many = await get(server, '/many-links');
    expect(many.complete).toBe(true);
    expect(many.body.toString().match(/<a href="\/m\/\d+">/g)).toHaveLength(100_000);
    const attr = await get(server, '/attribute-5mb');
    expect(attr.complete).toBe(true);
    expect(attr.body.length).toBe(Number(attr.headers['content-length']));
    expect(attr.body.length).toBeGreaterThan(5 * MiB);
    expect(attr.body.subarray(-200).toString()).toContain('<a href="/good/8.html">after the attribute</a>');
  });
});

describe('slow kinds', () => {
  it('/slow-headers never answers', async () => {
    const r = await get(server, '/slow-headers', { waitMs: 1500 });
    expect(r.status).toBeNull();
    expect(r.error).toBe('timeout');
  });

  it('/slow-body sends headers at once, then about a byte a second, and stops its timer when the client leaves', async () => {
    const pending = get(server, '/slow-body', { waitMs: 1500 });
    await new Promise((r) => setTimeout(r, 300));
    expect(server.timers).toBe(1);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThanOrEqual(1);
    expect(r.body.length).toBeLessThanOrEqual(2);
    expect(r.complete).toBe(false);
    expect(await settled(server)).toBe(0);
    expect(server.timers).toBe(0);
  });
});

describe('broken framing and connections', () => {
  it('/length-too-long promises 100000 bytes and closes after a few', async () => {
    const r = await get(server, '/length-too-long');
    expect(r.headers['content-length']).toBe('100000');
    expect(r.body.length).toBeLessThan(100);
    expect(r.complete).toBe(false);
  });

  it('/length-too-short: Content-Length covers only the first link', async () => {
    const r = await get(server, '/length-too-short');
    expect(r.complete).toBe(true);
    expect(r.body.toString()).toBe('<a href="/good/4.html">4</a>');
  });

  it('/reset-mid-body stops halfway', async () => {
    const r = await get(server, '/reset-mid-body');
    expect(r.headers['content-length']).toBe('200000');
    expect(r.body.length).toBeLessThanOrEqual(100_000);
    expect(r.complete).toBe(false);
  });

  it('/close-before-headers and /not-http give no HTTP response', async () => {
    expect((await get(server, '/close-before-headers')).error).toBe('ECONNRESET');
    expect((await get(server, '/not-http')).error).toMatch(/^HPE_/);
  });

  it('/header-flood sends 160 KiB of headers (over the usual 16 KiB limit)', async () => {
    expect((await get(server, '/header-flood')).error).toBe('HPE_HEADER_OVERFLOW');
    const r = await get(server, '/header-flood', { maxHeaderSize: MiB });
    expect(Object.keys(r.headers).filter((h) => h.startsWith('x-flood-'))).toHaveLength(40);
  });

  it('/tls: the port speaks plain HTTP, so a TLS handshake fails', async () => {
    const error = await new Promise<string>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port: server.port, servername: 'hostile.test' });
      s.on('secureConnect', () => resolve('connected'));
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    expect(error).not.toBe('connected');
  });
});

describe('statuses and types', () => {
  it('429, 503 with a date, 500 and 408', async () => {
    const tooMany = await get(server, '/status-429');
    expect([tooMany.status, tooMany.headers['retry-after']]).toEqual([429, '2']);
    const later = await get(server, '/status-503');
    expect(later.status).toBe(503);
    const at = Date.parse(later.headers['retry-after']!);
    expect(at).toBeGreaterThan(Date.now());
    expect(at).toBeLessThan(Date.now() + 5000);
    expect((await get(server, '/status-500')).status).toBe(500);
    const timeout = await get(server, '/status-408');
    expect([timeout.status, timeout.headers.connection]).toEqual([408, 'close']);
  });

  it('charsets: an unknown label, and a utf-8 label on windows-1251 bytes', async () => {
    expect((await get(server, '/charset-klingon')).headers['content-type']).toBe('text/html; charset=x-klingon');
    const lying = await get(server, '/charset-lying');
    expect(lying.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(lying.body)).toThrow();
    expect(iconv.decode(lying.body, 'windows-1251')).toContain('Кафедра враждебного веба');
  });

  it('HTML as octet-stream, binary without a type, an empty page, and gzip that is not', async () => {
    const octet = await get(server, '/octet-stream-html');
    expect(octet.headers['content-type']).toBe('application/octet-stream');
    expect(octet.body.toString()).toMatch(/^<!doctype html>/);
    const binary = await get(server, '/no-content-type');
    expect(binary.headers['content-type']).toBeUndefined();
    expect(binary.body.length).toBe(4096);
    const empty = await get(server, '/empty');
    expect([empty.status, empty.headers['content-length'], empty.body.length]).toEqual([200, '0', 0]);
    const garbage = await get(server, '/gzip-garbage');
    expect(garbage.headers['content-encoding']).toBe('gzip');
    expect(() => zlib.gunzipSync(garbage.body)).toThrow();
  });
});

describe('link traps', () => {
  it('deep paths, repeated segments, an endless calendar and a 5,000-character URL', async () => {
    expect((await get(server, '/deep/a/a')).body.toString()).toContain('href="/deep/a/a/a"');
    expect((await get(server, '/cal/a/b/a/b/')).body.toString()).toContain('href="a/b/"');
    const day = (await get(server, '/calendar?date=2024-02-28')).body.toString();
    expect(day).toContain('href="/calendar?date=2024-02-27"');
    expect(day).toContain('href="/calendar?date=2024-02-29"');
    expect((await get(server, '/calendar?date=2024-13-45')).status).toBe(400);
    const long = /href="([^"]+)"/.exec((await get(server, '/long-url')).body.toString())![1]!;
    expect(long).toHaveLength(5_000);
    expect((await get(server, long)).status).toBe(200);
  });

  it('malformed HTML carries NUL bytes; /dns-link and /meta-refresh are what they say', async () => {
    expect((await get(server, '/malformed')).body.includes(0)).toBe(true);
    expect((await get(server, '/dns-link')).body.toString()).toContain('href="http://no-such-host.invalid/"');
    expect((await get(server, '/meta-refresh')).body.toString()).toContain('content="0; url=/meta-refresh"');
  });

  it('counts hits per path', async () => {
    const before = server.hits('/good/2.html');
    await get(server, '/good/2.html');
    expect(server.hits('/good/2.html')).toBe(before + 1);
  });
});

describe('close()', () => {
  it('returns within a second with slow and stalled connections open, and ends them', async () => {
    const own = await startHostileServer();
    let closed!: () => void;
    const afterClose = new Promise<void>((r) => (closed = r));
    // Not awaited: these would hang (or stream) for ever. Each resolves when close() ends it.
    const open = [
      get(own, '/slow-headers', { waitMs: 5000 }),
      get(own, '/slow-body', { waitMs: 5000 }),
      get(own, '/big-chunked', { waitMs: 5000, stallUntil: afterClose }),
    ];
    while (own.inFlight < 3) await new Promise((r) => setTimeout(r, 10));
    const t0 = performance.now();
    await own.close();
    expect(performance.now() - t0).toBeLessThan(1000);
    closed();
    const ended = await Promise.all(open);
    for (const r of ended) expect(r).toMatchObject({ timedOut: false, complete: false });
    expect(ended.map((r) => r.status)).toEqual([null, 200, 200]);
    expect([own.inFlight, own.timers]).toEqual([0, 0]);
  });
});
