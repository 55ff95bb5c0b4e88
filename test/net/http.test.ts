// The fetch layer against real loopback servers: caps, decompression, timeouts, redirects.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPage, type FetchContext } from '../../src/net/fetch-page.js';
import { HostGate } from '../../src/net/host-gate.js';
import { createDispatcher, FetchError, httpGet, isZlibHeader, type HttpOptions } from '../../src/net/http.js';
import { LargeBodies } from '../../src/net/large-bodies.js';
import { siteRule } from '../../src/url/scope.js';

/** Bytes gzip cannot shrink: a compressed body longer than a cap on the wire too. */
const NOISE = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 2654435761) >>> 24));

let server: http.Server;
let base: string;
const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  '/big': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html' });
    r.end('x'.repeat(5000));
  },
  '/big-no-length': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'transfer-encoding': 'chunked' });
    for (let i = 0; i < 10; i++) r.write('y'.repeat(1000));
    r.end();
  },
  '/bomb': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    r.end(gzipSync(Buffer.alloc(1_000_000, 32)));
  },
  '/deflate': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' });
    r.end(deflateSync('<a href="/z">zlib</a>'));
  },
  '/deflate-raw': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' });
    r.end(deflateRawSync('<a href="/r">raw</a>'));
  },
  '/deflate-bomb': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' });
    r.end(deflateSync(Buffer.alloc(1_000_000, 32)));
  },
  '/gz': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    r.end(gzipSync('<a href="/x">x</a>'));
  },
  '/noise-gz': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    r.end(gzipSync(NOISE));
  },
  '/large': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-length': '300000' });
    r.end('l'.repeat(300_000));
  },
  '/large-chunked': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'transfer-encoding': 'chunked' });
    for (let i = 0; i < 30; i++) r.write('c'.repeat(10_000));
    r.end();
  },
  '/large-gz': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    r.end(gzipSync(Buffer.alloc(300_000, 'g')));
  },
  '/pdf': (_q, r) => {
    r.writeHead(200, { 'content-type': 'application/pdf', 'content-length': '4' });
    r.end('%PDF');
  },
  '/slow-headers': (_q, r) => {
    setTimeout(() => r.end('late'), 2000);
  },
  '/r1': (_q, r) => {
    r.writeHead(301, { location: '/r2' });
    r.end();
  },
  '/r2': (_q, r) => {
    r.writeHead(302, { location: `http://www.site.test:${(server.address() as AddressInfo).port}/final` });
    r.end();
  },
  '/final': (_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html' });
    r.end('<p>ok</p>');
  },
  '/away': (_q, r) => {
    r.writeHead(302, { location: 'https://elsewhere.example/' });
    r.end();
  },
  '/loop': (_q, r) => {
    r.writeHead(302, { location: '/loop2' });
    r.end();
  },
  '/loop2': (_q, r) => {
    r.writeHead(302, { location: '/loop' });
    r.end();
  },
};

beforeAll(async () => {
  server = http.createServer((req, res) => (routes[req.url ?? ''] ?? ((_q, r) => r.writeHead(404).end()))(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://site.test:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const opts = (over: Partial<HttpOptions> = {}): HttpOptions => ({
  userAgent: 'beebot-test',
  connectTimeout: 2000,
  headersTimeout: 500,
  bodyTimeout: 2000,
  maxBytes: 4096,
  resolve: new Map([['site.test', '127.0.0.1'], ['www.site.test', '127.0.0.1']]),
  proxy: null,
  checkCertificate: true,
  ...over,
});
const get = async (path: string, over: Partial<HttpOptions> = {}) => {
  const o = opts(over);
  const d = createDispatcher(o);
  try {
    return await httpGet(d, base + path, o, AbortSignal.timeout(5000));
  } finally {
    await d.close();
  }
};
const reason = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof FetchError ? e.reason : String(e)));

describe('httpGet', () => {
  it('caps the body by Content-Length and while streaming', async () => {
    expect(await reason(get('/big'))).toBe('too-large');
    expect(await reason(get('/big-no-length'))).toBe('too-large');
    expect((await get('/big', { maxBytes: 10_000 })).body?.length).toBe(5000);
  });

  it('decompresses gzip and caps the decompressed size (a gzip bomb stops at the cap)', async () => {
    expect((await get('/gz')).body?.toString()).toBe('<a href="/x">x</a>');
    expect(await reason(get('/bomb', { maxBytes: 100_000 }))).toBe('too-large');
  });

  it('decompresses deflate, zlib-wrapped or raw, and a deflate bomb is too-large', async () => {
    expect((await get('/deflate')).body?.toString()).toBe('<a href="/z">zlib</a>');
    expect((await get('/deflate-raw')).body?.toString()).toBe('<a href="/r">raw</a>');
    expect(await reason(get('/deflate-bomb', { maxBytes: 100_000 }))).toBe('too-large');
  });

  it('robots mode: a compressed body gives its first `cap` bytes, a bomb or a body cut on the wire included', async () => {
    const robots = async (path: string, cap: number) => {
      const o = opts({ maxBytes: 100_000 });
      const d = createDispatcher(o);
      try {
        return (await httpGet(d, base + path, o, AbortSignal.timeout(5000), 'robots', cap)).body!;
      } finally {
        await d.close();
      }
    };
    expect(await robots('/bomb', 1000)).toEqual(Buffer.alloc(1000, 32));
    expect(await robots('/deflate-bomb', 1000)).toEqual(Buffer.alloc(1000, 32));
    const cut = await robots('/noise-gz', 5000);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThanOrEqual(5000);
    expect(cut).toEqual(NOISE.subarray(0, cut.length));
  });

  it('tells a zlib header from raw deflate by its first two bytes', () => {
    for (const level of [0, 1, 6, 9]) {
      expect(isZlibHeader(deflateSync('some html', { level })), `zlib level ${level}`).toBe(true);
      expect(isZlibHeader(deflateRawSync('some html', { level })), `raw level ${level}`).toBe(false);
    }
    expect(isZlibHeader(Buffer.from([0x78]))).toBe(false);
  });

  it('does not read bodies of types it does not parse', async () => {
    const r = await get('/pdf');
    expect(r).toMatchObject({ status: 200, contentType: 'application/pdf', contentLength: 4, body: null });
  });

  it('times out on slow headers', async () => {
    expect(await reason(get('/slow-headers'))).toBe('headers-timeout');
  });

  it('maps a refused connection and an unknown host to short reasons', async () => {
    const o = opts({ resolve: new Map([['site.test', '127.0.0.1']]) });
    const d = createDispatcher(o);
    expect(await reason(httpGet(d, 'http://site.test:1/', o, AbortSignal.timeout(5000)))).toBe('refused');
    expect(await reason(httpGet(d, 'http://no-such-host.invalid/', o, AbortSignal.timeout(5000)))).toBe('dns');
    await d.close();
  });
});

describe('fetchPage redirects', () => {
  const ctx = (): FetchContext => {
    const o = opts();
    return {
      dispatcher: createDispatcher(o),
      http: o,
      gate: new HostGate({ delayMs: 0, maxBackoffMs: 0 }),
      site: { rule: siteRule(new URL('http://site.test/'), 'host'), nested: [], mode: 'standard' as const },
      maxRedirects: 10,
      retries: 0,
      signal: AbortSignal.timeout(5000),
    };
  };

  it('follows in-site hops (www included), recording each', async () => {
    const f = await fetchPage(base + '/r1', ctx());
    expect(f.hops.map((h) => h.status)).toEqual([301, 302, 200]);
    expect(f.finalUrl).toMatch(/^http:\/\/www\.site\.test:\d+\/final$/);
    expect(f.response?.body?.toString()).toBe('<p>ok</p>');
  });

  it('stops at an off-site redirect and reports its target', async () => {
    const f = await fetchPage(base + '/away', ctx());
    expect(f.offsite).toEqual({ url: 'https://elsewhere.example/', key: 'http://elsewhere.example/', host: 'elsewhere.example' });
  });

  it('detects loops and caps the hop count', async () => {
    expect((await fetchPage(base + '/loop', ctx())).error).toMatch(/^redirect-loop/);
    const c = { ...ctx(), maxRedirects: 1 };
    expect((await fetchPage(base + '/r1', c)).error).toMatch(/^too-many-redirects/);
  });
});

describe('httpGet with a large-body turn', () => {
  // A threshold of 100,000 bytes: the 300,000-byte bodies are large, /big (5,000) is not.
  const o = opts({ maxBytes: 1_000_000 });
  const bodies = new LargeBodies(100_000);
  const pending = async (p: Promise<unknown>): Promise<boolean> => {
    let done = false;
    void p.then(() => (done = true), () => (done = true));
    await sleep(300);
    return !done;
  };
  const d = createDispatcher(o);
  afterAll(() => d.close());

  for (const path of ['/large', '/large-chunked', '/large-gz']) {
    it(`${path}: waits while another page holds the turn, then is read whole and keeps it`, async () => {
      const other = bodies.claim();
      await other.take(AbortSignal.timeout(5000));
      const turn = bodies.claim();
      const got = httpGet(d, base + path, o, AbortSignal.timeout(5000), 'page', o.maxBytes, {}, turn);
      expect(await pending(got)).toBe(true);
      expect(bodies.queued).toBe(1);
      other.done();
      expect((await got).body?.length).toBe(300_000);
      expect(turn.held).toBe(true); // until its page is done
      turn.done();
    });
  }

  it('a small body does not wait for the turn', async () => {
    const other = bodies.claim();
    await other.take(AbortSignal.timeout(5000));
    const turn = bodies.claim();
    expect((await httpGet(d, `${base}/big`, o, AbortSignal.timeout(5000), 'page', o.maxBytes, {}, turn)).body?.length).toBe(5000);
    expect(turn.held).toBe(false);
    other.done();
  });

  it("a page's deadline ends its wait: page-timeout, and the turn is not taken", async () => {
    const other = bodies.claim();
    await other.take(AbortSignal.timeout(5000));
    const turn = bodies.claim();
    expect(await reason(httpGet(d, `${base}/large`, o, AbortSignal.timeout(300), 'page', o.maxBytes, {}, turn))).toBe('page-timeout');
    expect(bodies.queued).toBe(0);
    expect(turn.held).toBe(false);
    other.done();
  });

  it('a request that fails after taking the turn gives it back', async () => {
    const turn = bodies.claim();
    expect(await reason(httpGet(d, `${base}/large-chunked`, o, AbortSignal.timeout(5000), 'page', 200_000, {}, turn))).toBe('too-large');
    expect(turn.held).toBe(false);
    const next = bodies.claim();
    await next.take(AbortSignal.timeout(100)); // free at once
    next.done();
  });
});
