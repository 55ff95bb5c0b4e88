// One outside URL checked: HEAD, GET when HEAD is refused or fails, redirects followed, the URL's
// whole time bounded. Real HTTP on loopback, through the crawl's dispatcher and host gate.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { checkUrl, isBroken } from '../../src/check/check-url.js';
import { HostGate } from '../../src/net/host-gate.js';
import { createDispatcher, type HttpOptions } from '../../src/net/http.js';

describe('isBroken', () => {
  it('is a 4xx or 5xx answer, an error, or no answer at all', () => {
    const answer = (status: number | null, error: string | null = null) => isBroken({ status, error });
    expect([200, 204, 301, 302, 399].map((s) => answer(s))).toEqual([false, false, false, false, false]);
    expect([400, 404, 410, 500, 503].map((s) => answer(s))).toEqual([true, true, true, true, true]);
    expect([answer(null), answer(null, 'refused'), answer(302, 'too-many-redirects: more than 10')]).toEqual([true, true, true]);
  });
});

describe('checkUrl', () => {
  const http: HttpOptions = {
    userAgent: 'beebot-check-test', connectTimeout: 5_000, headersTimeout: 5_000, bodyTimeout: 5_000, maxBytes: 1_000_000,
    resolve: new Map(), proxy: null, checkCertificate: true,
  };
  const dispatcher = createDispatcher(http);
  const asked: string[] = [];
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      asked.push(`${req.method} ${path} ${req.headers['user-agent']}`);
      const hop = /^\/(chain|loop)\/(\d+)$/.exec(path);
      if (path === '/ok') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
      if (path === '/no-head') return void res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
      if (path === '/gone') return void res.writeHead(404).end();
      if (path === '/moved-nowhere') return void res.writeHead(302).end();
      if (path === '/bad-redirect') return void res.writeHead(301, { location: 'http://[bad' }).end();
      if (path === '/slow') {
        const timer = setTimeout(() => res.writeHead(200).end(), 5_000);
        return void res.on('close', () => clearTimeout(timer));
      }
      if (hop?.[1] === 'chain') return void res.writeHead(302, { location: Number(hop[2]) < 2 ? `/chain/${Number(hop[2]) + 1}` : '/ok' }).end();
      if (hop?.[1] === 'loop') return void res.writeHead(307, { location: `/loop/${Number(hop[2]) + 1}` }).end();
      res.writeHead(500).end();
    });
    base = `http://127.0.0.1:${await listenLoopback(server)}`;
  });
  afterAll(async () => {
    await dispatcher.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const check = (path: string, budgetMs = 10_000, signal = new AbortController().signal) => {
    asked.length = 0;
    return checkUrl(`${base}${path}`, dispatcher, http, new HostGate({ delayMs: 0, maxBackoffMs: 1_000 }), signal, budgetMs);
  };

  it('a URL that answers HEAD is checked by HEAD alone, with the crawl\'s user agent', async () => {
    expect(await check('/ok')).toEqual({ url: `${base}/ok`, method: 'HEAD', status: 200, finalUrl: `${base}/ok`, error: null });
    expect(asked).toEqual(['HEAD /ok beebot-check-test']);
  });

  it('asks again by GET when HEAD is refused, and keeps the GET\'s answer', async () => {
    expect(await check('/no-head')).toMatchObject({ method: 'GET', status: 200, error: null });
    expect(asked.map((a) => a.split(' ')[0])).toEqual(['HEAD', 'GET']);
    expect(await check('/gone')).toMatchObject({ method: 'GET', status: 404, error: null });
  });

  it('follows redirects to the final URL and reports its status', async () => {
    expect(await check('/chain/0')).toEqual({ url: `${base}/chain/0`, method: 'HEAD', status: 200, finalUrl: `${base}/ok`, error: null });
    expect(asked.map((a) => a.split(' ')[1])).toEqual(['/chain/0', '/chain/1', '/chain/2', '/ok']);
  });

  it('a redirect without a Location is the answer; an endless chain stops after 10 hops; a Location that is no URL is an error', async () => {
    expect(await check('/moved-nowhere')).toMatchObject({ method: 'HEAD', status: 302, error: null });
    expect(await check('/loop/0')).toEqual({ url: `${base}/loop/0`, method: 'GET', status: 307, finalUrl: `${base}/loop/10`, error: 'too-many-redirects: more than 10' });
    expect(asked.length).toBe(22); // eleven requests by HEAD, eleven by GET
    expect(await check('/bad-redirect')).toMatchObject({ method: 'GET', status: 301, finalUrl: `${base}/bad-redirect`, error: 'bad-redirect: http://[bad' });
  });

  it('a server that does not answer costs the URL its budget, HEAD and GET together, and says so', async () => {
    expect(await check('/slow', 300)).toEqual({ url: `${base}/slow`, method: 'HEAD', status: null, finalUrl: `${base}/slow`, error: 'timeout: no answer within 0.3 s' });
    expect(asked.map((a) => a.split(' ')[0])).toEqual(['HEAD']); // no time left for the GET
  });

  it('a refused connection is the error the crawl names it', async () => {
    const closed = createServer();
    const port = await listenLoopback(closed);
    await new Promise((r) => closed.close(r));
    const url = `http://127.0.0.1:${port}/`;
    expect(await checkUrl(url, dispatcher, http, new HostGate({ delayMs: 0, maxBackoffMs: 1_000 }), new AbortController().signal, 5_000))
      .toEqual({ url, method: 'GET', status: null, finalUrl: url, error: 'refused' });
  });

  it("ends with the run: an aborted signal rejects instead of reporting the URL broken", async () => {
    const stop = new AbortController();
    stop.abort(new Error('run ended'));
    await expect(check('/ok', 10_000, stop.signal)).rejects.toThrow('run ended');
  });
});
