// A site whose TLS certificate the machine does not trust (self-signed, as an expired or
// mismatched certificate on a real site): named in every output, never waited for, crawled with
// the opt-in. Real CLI, real HTTPS server on loopback (fixtures/tls: a self-signed certificate).
import { createServer as createHttps } from 'node:https';
import { createServer as createHttp, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLoopback } from '../../fixtures/listen.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { rows } from '../helpers/read-db.js';

const TLS = new URL('../../fixtures/tls/', import.meta.url);
const page = (body: string) => `<!doctype html><html><body>${body}</body></html>`;

let tmp: ReturnType<typeof tempDir>;
let secure: Server;
let plain: Server;
let tlsPort: number;
let httpPort: number;

beforeAll(async () => {
  tmp = tempDir();
  secure = createHttps({ cert: readFileSync(new URL('self-signed.pem', TLS)), key: readFileSync(new URL('self-signed.key', TLS)) }, (req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(req.url === '/' ? '<a href="/a">a</a> <a href="http://out.example/">out</a>' : 'the end'));
  });
  secure.on('tlsClientError', () => {});
  tlsPort = await listenLoopback(secure);
  // an http site that links an https page of an untrusted host, as an external link
  plain = createHttp((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<a href="https://cert.test:${tlsPort}/">secure</a>`));
  });
  httpPort = await listenLoopback(plain);
});
afterAll(async () => {
  await Promise.all([new Promise((r) => secure?.close(r)), new Promise((r) => plain?.close(r))]);
  tmp?.cleanup();
});

const resolve = () => ['--resolve', `cert.test:${tlsPort}:127.0.0.1`, '--resolve', `plain.test:${httpPort}:127.0.0.1`];

describe('a site whose certificate is not trusted', () => {
  it('is named, not waited for, left to the next crawl; --no-check-certificate crawls it and status says so', async () => {
    const db = join(tmp.dir, 'cert.db');
    expect((await beebot(['seeds', 'add', `https://cert.test:${tlsPort}/`, '--short', 'ct'], { db })).code).toBe(0);
    const started = Date.now();
    const r = await beebot(['crawl', '--delay', '0', ...resolve()], { db });
    // not a failure for now: no back-off, no retry span
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.stderr).not.toMatch(/\n\s+at |waiting:/);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('beebot:'));
    expect(lines).toEqual([
      `beebot: nothing could be fetched in this run: every host asked has a TLS certificate this machine does not accept (last: https://cert.test:${tlsPort}/: certificate not trusted: self-signed certificate); trust its CA (NODE_EXTRA_CA_CERTS=ca.pem) or crawl with --no-check-certificate`,
    ]);
    expect(r.stdout).toContain(`  site ct: not available in this run: start page not fetched: certificate not trusted: self-signed certificate (https://cert.test:${tlsPort}); tried again by the next crawl, or crawl with --no-check-certificate\n`);
    expect(r.stdout).toMatch(/^this run fetched nothing/m);
    // the page stays queued, charged nothing; status names the certificate
    expect(rows<{ status: string; attempts: number }>(db, 'SELECT status, attempts FROM pages')).toEqual([{ status: 'queued', attempts: 0 }]);
    const st = await beebot(['status'], { db });
    expect(st.stdout).toMatch(/certificate not trusted: self-signed certificate/);
    expect(st.stdout).not.toMatch(/certificates: not checked/);

    const insecure = await beebot(['crawl', '--delay', '0', '--no-check-certificate', ...resolve()], { db });
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(rows<{ status: string }>(db, 'SELECT status FROM pages ORDER BY id').map((p) => p.status)).toEqual(['done', 'done']);
    expect((await beebot(['config', 'get', 'check-certificate'], { db })).stdout).toMatch(/\bno\b/);
    expect((await beebot(['status'], { db })).stdout).toContain('certificates: not checked (check-certificate no): any TLS certificate is accepted\n');
    expect(JSON.parse((await beebot(['status', '--json'], { db })).stdout).check_certificate).toBe('no');
  }, 60_000);

  it('check names the certificate of an external URL', async () => {
    const db = join(tmp.dir, 'check.db');
    expect((await beebot(['seeds', 'add', `http://plain.test:${httpPort}/`, '--short', 'pl'], { db })).code).toBe(0);
    expect((await beebot(['crawl', '--delay', '0', ...resolve()], { db })).code).toBe(0);
    const r = await beebot(['check', 'pl', '--json', '--delay', '0', ...resolve()], { db });
    expect(r.stdout).toContain('certificate not trusted: self-signed certificate');
  }, 60_000);
});
