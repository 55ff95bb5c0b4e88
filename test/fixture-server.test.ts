import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb } from '../fixtures/server.js';
import { fixtureFacts, fixtureSeeds, respond } from '../fixtures/web.js';

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let web: FixtureWeb;

function get(host: string, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: web.port, path, headers: { host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const cyrillicLetters = (s: string) => (s.match(/[а-яё]/gi) ?? []).length;

beforeAll(async () => {
  web = await startFixtureWeb();
});
afterAll(async () => {
  await web.close();
});

describe('fixture server', () => {
  it('exposes port, url() and resolveArgs()', () => {
    expect(web.port).toBeGreaterThan(0);
    expect(web.url('thin.test', '/about/')).toBe(`http://thin.test:${web.port}/about/`);
    expect(web.url('thin.test')).toBe(`http://thin.test:${web.port}/`);
    const args = web.resolveArgs();
    for (const s of fixtureSeeds) {
      expect(args).toContain(`${s.host}:${web.port}:127.0.0.1`);
      expect(args).toContain(`www.${s.host}:${web.port}:127.0.0.1`);
    }
    expect(args.filter((a) => a === '--resolve').length).toBe(args.length / 2);
  });

  it('serves byte-identical responses (and no Date header)', async () => {
    const a = await get('thin.test', '/');
    const b = await get('thin.test', '/');
    expect(a.status).toBe(200);
    expect(a.body.equals(b.body)).toBe(true);
    expect(a.headers).toEqual(b.headers);
    expect(a.headers.date).toBeUndefined();
    expect(Number(a.headers['content-length'])).toBe(a.body.length);
    // pure generator: same port → same bytes
    const r1 = respond('cyr.test', '/kafedra/matematika.html', 1234);
    const r2 = respond('cyr.test', '/kafedra/matematika.html', 1234);
    expect(Buffer.from(r1.body).equals(Buffer.from(r2.body))).toBe(true);
  });

  it('puts the server port into absolute self links; routes www. and Host ports', async () => {
    const pages = fixtureFacts.pages['thin.test'];
    const bodies = pages.map((p) => respond('thin.test', p.path, web.port).body.toString());
    expect(bodies.some((b) => b.includes(`href="http://thin.test:${web.port}/`))).toBe(true);
    expect(bodies.some((b) => b.includes(`href="http://www.thin.test:${web.port}/`))).toBe(true);
    expect(bodies.some((b) => new RegExp(`href="http://thin\\.test:${web.port}/[^"#]*#details"`).test(b))).toBe(true);
    const www = await get(`www.thin.test:${web.port}`, '/');
    const plain = await get('thin.test', '/');
    expect(www.status).toBe(200);
    expect(www.body.equals(plain.body)).toBe(true);
  });

  it('answers 404 with an HTML body for unknown paths and hosts', async () => {
    const r = await get('thin.test', '/no/such/page.html');
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.body.toString()).toContain('<html');
    expect((await get('nowhere.test', '/')).status).toBe(404);
    for (const path of fixtureFacts.brokenByHost['cyr.test']) expect((await get('cyr.test', path)).status).toBe(404);
  });

  it('answers 503 for everything on down.test', async () => {
    for (const path of ['/', '/index.html', '/a/b?c=d']) {
      const r = await get('down.test', path);
      expect(r.status).toBe(503);
    }
    expect(fixtureFacts.availableByHost['down.test']).toBe(false);
    expect(fixtureFacts.pagesByHost['down.test']).toBe(0);
  });

  it('redirects', async () => {
    const { redirects } = fixtureFacts.samples;
    const inside = await get('cyr.test', '/go/inside');
    expect(inside.status).toBe(301);
    expect(inside.headers.location).toBe('/redirected/inside.html');
    const outside = await get('cyr.test', '/go/outside');
    expect(outside.status).toBe(302);
    expect(outside.headers.location).toBe('https://www.example.org/landing');
    expect((await get('cyr.test', '/go/loop-a')).headers.location).toBe('/go/loop-b');
    expect((await get('cyr.test', '/go/loop-b')).headers.location).toBe('/go/loop-a');
    const www = await get('cyr.test', '/go/www');
    expect(www.status).toBe(301);
    expect(www.headers.location).toBe(`http://www.cyr.test:${web.port}/redirected/www.html`);
    expect((await get('www.cyr.test', '/redirected/www.html')).status).toBe(200);

    // follow the chain of 3 in-site redirects
    let url = new URL(web.url('cyr.test', redirects.chain.from[0]));
    const statuses: number[] = [];
    for (;;) {
      const r = await get(url.host, url.pathname + url.search);
      if (r.status < 300 || r.status >= 400) {
        expect(r.status).toBe(200);
        break;
      }
      statuses.push(r.status);
      url = new URL(r.headers.location!, url);
    }
    expect(statuses).toEqual(redirects.chain.statuses);
    expect(url.pathname).toBe(redirects.chain.final);
    expect(url.hostname).toBe('cyr.test');
  });

  it('serves gzip and br compressed pages', async () => {
    const g = await get('cyr.test', fixtureFacts.samples.gzipUrl);
    expect(g.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(g.body).toString('utf8')).toContain('Новости науки');
    const b = await get('cyr.test', fixtureFacts.samples.brUrl);
    expect(b.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(b.body).toString('utf8')).toContain('Новости спорта');
  });

  it('serves legacy-encoded Russian pages', async () => {
    const s = fixtureFacts.samples;
    const m = await get('cyr.test', s.cp1251Url);
    expect(m.headers['content-type']).toBe('text/html; charset=windows-1251');
    expect(m.body.toString('utf8')).not.toContain(s.cp1251AnchorText);
    const text = iconv.decode(m.body, 'windows-1251');
    expect(text).toContain(s.cp1251AnchorText);
    expect(text).toContain(s.encodedPages[0].text);

    for (const e of s.encodedPages) {
      const r = await get('cyr.test', e.path);
      expect(r.status).toBe(200);
      const decoded = iconv.decode(r.body, e.encoding);
      expect(decoded).toContain(e.text);
      expect(decoded).toContain(`>${e.externalAnchorText}</a>`);
      expect(decoded).toContain(s.cp1251AnchorText);
      expect(cyrillicLetters(decoded.replace(/<[^>]*>/g, ''))).toBeGreaterThanOrEqual(300);
      const ct = r.headers['content-type'];
      const raw = r.body.toString('latin1');
      if (e.declared === 'header') expect(ct).toBe(`text/html; charset=${e.encoding}`);
      else expect(ct).toBe('text/html');
      if (e.declared === 'none') expect(raw).not.toMatch(/charset/i);
      if (e.declared === 'meta-http-equiv') expect(raw).toContain(`<meta http-equiv="Content-Type" content="text/html; charset=${e.encoding}">`);
      if (e.declared === 'meta-charset') expect(raw).toContain(`<meta charset="${e.encoding}">`);
    }
    const start = await get('cyr.test', '/');
    expect(start.headers['content-type']).toBe('text/html');
    expect(start.body.toString('utf8')).toContain('<meta charset="utf-8">');
    expect(start.body.toString('utf8')).toContain(`href="${s.idn.href}"`);
  });

  it('serves the PDF, the text/plain page, and destroys the socket for the reset URL', async () => {
    const pdf = await get('tiny.test', '/doc.pdf');
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    const txt = await get('cyr.test', fixtureFacts.samples.textPlainUrl);
    expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
    await expect(get('cyr.test', fixtureFacts.samples.resetUrl)).rejects.toThrow();
  });

  it('counts requests', async () => {
    const before = web.requests;
    await get('tiny.test', '/');
    expect(web.requests).toBe(before + 1);
  });
});

describe('fixture facts', () => {
  it('has the expected shape', () => {
    const f = fixtureFacts;
    expect(f.seedHosts).toEqual(['thin.test', 'hubs.test', 'tiny.test', 'down.test', 'cyr.test']);
    expect(f.pagesByHost['tiny.test']).toBe(3);
    expect(f.externalPairsByHost['tiny.test']).toBe(1);
    expect(f.nonHtmlByHost['tiny.test']).toEqual({ '/doc.pdf': 'application/pdf' });
    expect(f.maxDepthByHost['thin.test']).toBe(6);
    expect(f.pagesBeyondMaxLevelByHost['thin.test']).toBeGreaterThan(0);
    expect(f.pages['thin.test'].length).toBeGreaterThanOrEqual(100);
    expect(f.maxDepthByHost['hubs.test']).toBeLessThanOrEqual(5);
    expect(f.pages['hubs.test'].length).toBeGreaterThanOrEqual(70);
    const total = Object.values(f.pagesByHost).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(150);
    expect(total).toBeLessThan(400);
    // hubs: 3 hubs at levels 1..3 with 30–60 externals, otherwise almost no externals
    expect(f.samples.hubs.map((h) => h.level).sort()).toEqual([1, 2, 3]);
    for (const h of f.samples.hubs) expect(h.externals).toBeGreaterThanOrEqual(30);
    for (const h of f.samples.hubs) expect(h.externals).toBeLessThanOrEqual(60);
    const hubPaths = new Set(f.samples.hubs.map((h) => h.path));
    const others = Object.entries(f.externalsByPage['hubs.test']).filter(([p, urls]) => !hubPaths.has(p) && urls.length > 0);
    expect(others.length).toBeLessThanOrEqual(10);
    // thin: 0–2 externals per page
    for (const urls of Object.values(f.externalsByPage['thin.test'])) expect(urls.length).toBeLessThanOrEqual(2);
    expect(f.samples.thinLevel6Pages.length).toBeGreaterThan(0);
    expect(f.samples.thinWwwLinks).toBeGreaterThan(0);
    expect(f.samples.thinFragmentLinks).toBeGreaterThan(0);
    expect(f.samples.thinRelativeLinks).toBeGreaterThan(0);
    expect(f.companionHosts).toEqual(expect.arrayContaining(['www.example.org', 'partner-3.example.net']));
    expect(f.samples.idn.host).toBe('xn--80abucjiibhv9a.xn--p1ai');
  });

  it('level-6 pages exist on the server', async () => {
    for (const p of fixtureFacts.samples.thinLevel6Pages) {
      expect((await get('thin.test', p)).status).toBe(200);
    }
  });

  it('every HTML page is 1–6 KB, well-formed enough, and has internal links', () => {
    for (const host of fixtureFacts.seedHosts) {
      for (const p of fixtureFacts.pages[host]) {
        const r = respond(host, p.path, web.port);
        expect(r.status).toBe(200);
        const raw = Buffer.from(r.body);
        const html = p.compress === 'gzip' ? gunzipSync(raw) : p.compress === 'br' ? brotliDecompressSync(raw) : raw;
        expect(html.length, `${host}${p.path}`).toBeGreaterThanOrEqual(1000);
        expect(html.length, `${host}${p.path}`).toBeLessThanOrEqual(6144);
        const text = iconv.decode(html, p.encoding);
        expect(text.startsWith('<!DOCTYPE html')).toBe(true);
        expect(text).toMatch(/<(a|frame) [^>]*(href|src)="/);
      }
    }
  });

  /** Recompute the facts by crawling the rendered bytes (regex link extraction), with the semantics documented
   *  on FixtureFacts: redirects don't add a level, frames/iframes are links, <base href> honoured. */
  it('agrees with a crawl of the served bytes', () => {
    const port = web.port;
    for (const host of fixtureFacts.seedHosts) {
      const key = (u: URL) =>
        /^https?:$/.test(u.protocol) && u.hostname.replace(/^www\./, '') === host ? u.pathname + u.search : null;
      const levels = new Map<string, number>();
      const pairs = new Set<string>();
      const seen = new Set<string>(['/']);
      let frontier = ['/'];
      for (let level = 0; frontier.length > 0; level++) {
        const next: string[] = [];
        for (let i = 0; i < frontier.length; i++) {
          const path = frontier[i];
          const r = respond(host, path, port);
          if (r.destroy || r.status !== 200) {
            if (r.status >= 300 && r.status < 400) {
              const k = key(new URL(r.headers['Location'], `http://${host}:${port}${path}`));
              if (k !== null && !seen.has(k)) { seen.add(k); frontier.push(k); }
            }
            continue;
          }
          if (!r.headers['Content-Type'].startsWith('text/html')) continue;
          levels.set(path, level);
          let raw = Buffer.from(r.body);
          if (r.headers['Content-Encoding'] === 'gzip') raw = gunzipSync(raw);
          if (r.headers['Content-Encoding'] === 'br') raw = brotliDecompressSync(raw);
          const enc = fixtureFacts.pages[host].find((p) => p.path === path)?.encoding ?? 'utf-8';
          const html = iconv.decode(raw, enc);
          const pageUrl = `http://${host}:${port}${path}`;
          const baseHref = /<base href="([^"]*)">/.exec(html)?.[1];
          const base = baseHref ? new URL(baseHref, pageUrl).href : pageUrl;
          for (const m of html.matchAll(/<(?:a|frame|iframe) [^>]*?(?:href|src)="([^"]*)"/g)) {
            const href = m[1].replace(/&amp;/g, '&');
            const u = new URL(href, base);
            const k = key(u);
            if (k !== null) {
              if (!seen.has(k)) { seen.add(k); next.push(k); }
            } else if (/^https?:$/.test(u.protocol) && level <= fixtureFacts.maxLevel) {
              pairs.add(`${path} ${u.href}`);
            }
          }
        }
        frontier = next;
      }
      const low = [...levels.values()].filter((l) => l <= fixtureFacts.maxLevel).length;
      expect(low, host).toBe(fixtureFacts.pagesByHost[host]);
      expect(pairs.size, host).toBe(fixtureFacts.externalPairsByHost[host]);
      expect(Math.max(0, ...levels.values()), host).toBe(fixtureFacts.maxDepthByHost[host]);
      expect(levels.size, host).toBe(fixtureFacts.pages[host].length);
      for (const p of fixtureFacts.pages[host]) expect(levels.get(p.path), `${host}${p.path}`).toBe(p.level);
    }
  });

  it('base href resolves to existing pages (and would 404 without it)', () => {
    const s = fixtureFacts.samples;
    const levels = new Map(fixtureFacts.pages['cyr.test'].map((p) => [p.path, p.level]));
    for (const t of s.baseHrefTargets) {
      expect(levels.has(t)).toBe(true);
      const without = new URL(t.split('/').pop()!, `http://cyr.test${s.baseHrefPage}`).pathname;
      expect(respond('cyr.test', without, 1).status).toBe(404);
    }
    expect(levels.has(s.iframeUrl)).toBe(true);
    for (const f of s.frameUrls) expect(levels.has(f)).toBe(true);
    expect(levels.has(s.redirects.inside.final)).toBe(true);
    expect(levels.has(s.redirects.www.final)).toBe(true);
  });
});
