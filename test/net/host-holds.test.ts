// What a failing host means, in the pure parts: a hold is per host, the site's other hosts go on;
// a certificate the machine does not accept is named, in words a user acts on.
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostHolds } from '../../src/net/host-holds.js';
import { certificateIn, certificateProblem } from '../../src/net/certificate.js';
import { createDispatcher, httpGet, type HttpOptions } from '../../src/net/http.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import type { SiteQueues } from '../../src/schedule/page-choice.js';
import type { FrontierPage } from '../../src/schedule/queued-page.js';
import { queuedFate } from '../../src/page/link-fate.js';
import { defaults } from '../../src/store/settings.js';
import { listenLoopback } from '../../fixtures/listen.js';

describe('HostHolds', () => {
  it('holds a host until its time, then lets it go; a hold for the run stays until the run ends', () => {
    const h = new HostHolds(60_000);
    h.hold('a.test', { kind: 'robots', until: 2_000, retryAt: 2_000, cause: 'robots.txt HTTP 503' });
    expect(h.retryAt('a.test', 1_000)).toBe(2_000);
    expect(h.retryAt('a.test', 2_000)).toBeNull();
    expect(h.of('b.test', 0)).toBeNull();
    h.hold('b.test', { kind: 'certificate', until: Infinity, retryAt: 0, cause: 'certificate not trusted: self-signed certificate' });
    // its pages are put off past anything the run waits for
    expect(h.retryAt('b.test', 5_000)).toBe(65_000);
    h.hold('b.test', { kind: 'robots', until: 6_000, retryAt: 6_000, cause: 'robots.txt HTTP 503' });
    h.release('b.test');
    expect(h.of('b.test', 1e12)?.kind).toBe('certificate');
    expect([...h.all(3_000).keys()]).toEqual(['b.test']);
  });

  it('an answer releases a hold that would run out anyway', () => {
    const h = new HostHolds(60_000);
    h.hold('a.test', { kind: 'robots', until: 9_000, retryAt: 9_000, cause: 'robots.txt HTTP 502' });
    h.release('a.test');
    expect(h.retryAt('a.test', 1_000)).toBeNull();
  });
});

describe('a site whose host is held', () => {
  const page = (id: number, url: string): FrontierPage => ({ id, siteId: 1, url, level: 1 });

  it("goes on with its other hosts: the held host's pages are put off, not fetched, not skipped", () => {
    const queued = [page(1, 'http://k.test/t1'), page(2, 'http://k.test/t2'), page(3, 'http://www.k.test/p1')];
    const due = new Set(queued.map((p) => p.id));
    const queues: SiteQueues = {
      nextPage: () => queued.find((p) => due.has(p.id)),
      soonestRetry: () => null,
      rescore: () => {},
      skip: () => {
        throw new Error('a page of a held host is not skipped');
      },
    };
    const putOff: [number, number][] = [];
    const scheduler = new Scheduler([{ id: 1, group: null, unavailable: null, pulls: 0, rewardSum: 0, rewardMax: 0 }], { ...defaults, order: 'bfs' });
    const held = {
      retryAt: (p: FrontierPage) => (new URL(p.url).host === 'k.test' ? 5_000 : null),
      putOff: (p: FrontierPage, at: number) => {
        // the whole host at once, as the store does
        for (const q of queued) if (new URL(q.url).host === new URL(p.url).host) due.delete(q.id);
        putOff.push([p.id, at]);
      },
    };
    scheduler.open(queues, queuedFate, () => 0, true, held);
    expect(scheduler.choice.pageFor(1)?.url).toBe('http://www.k.test/p1');
    expect(putOff).toEqual([[1, 5_000]]);
    expect(scheduler.choice.siteCounts()).toMatchObject({ crawling: 1, exhausted: 0 });
  });
});

describe('a certificate the machine does not accept', () => {
  it.each([
    [{ code: 'SELF_SIGNED_CERT_IN_CHAIN' }, 'certificate not trusted: self-signed certificate in chain'],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, 'certificate not trusted: self-signed certificate'],
    [{ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }, 'certificate not trusted: issuer unknown, unable to verify the first certificate'],
    [{ code: 'CERT_HAS_EXPIRED', cert: { valid_to: 'Jan  1 00:00:00 2020 GMT' } }, 'certificate expired on Jan  1 00:00:00 2020 GMT'],
    [{ code: 'CERT_HAS_EXPIRED' }, 'certificate expired'],
    [{ code: 'ERR_TLS_CERT_ALTNAME_INVALID', cert: { subjectaltname: 'DNS:other.host, DNS:www.other.host' } }, 'certificate is for other.host, www.other.host'],
    [{ code: 'ECONNRESET' }, null],
  ])('%j reads %j', (err, words) => {
    expect(certificateProblem(err)).toBe(words);
  });

  it('is found in a page\'s error and in its robots.txt\'s', () => {
    expect(certificateIn('certificate expired on Jan  1 00:00:00 2020 GMT')).toBe('certificate expired on Jan  1 00:00:00 2020 GMT');
    expect(certificateIn('robots.txt unreachable (certificate not trusted: self-signed certificate): everything disallowed for now')).toBe('certificate not trusted: self-signed certificate');
    expect(certificateIn('robots.txt unreachable (refused): everything disallowed for now')).toBeNull();
    expect(certificateIn(null)).toBeNull();
  });

  it('is what a request to a self-signed server fails with; check-certificate no reads the page', async () => {
    const tls = new URL('../../fixtures/tls/', import.meta.url);
    const server = createServer({ cert: readFileSync(new URL('self-signed.pem', tls)), key: readFileSync(new URL('self-signed.key', tls)) }, (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>hello</p>');
    });
    server.on('tlsClientError', () => {});
    const port = await listenLoopback(server);
    const o = (check: boolean): HttpOptions => ({
      userAgent: 'beebot-test', connectTimeout: 2000, headersTimeout: 2000, bodyTimeout: 2000, maxBytes: 4096,
      resolve: new Map([['cert.test', '127.0.0.1']]), proxy: null, checkCertificate: check,
    });
    try {
      const url = `https://cert.test:${port}/`;
      const strict = o(true);
      await expect(httpGet(createDispatcher(strict), url, strict, AbortSignal.timeout(5000))).rejects.toThrow(/^certificate not trusted: self-signed certificate$/);
      const lax = o(false);
      expect((await httpGet(createDispatcher(lax), url, lax, AbortSignal.timeout(5000))).status).toBe(200);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
