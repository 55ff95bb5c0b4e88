// A small site with known broken links, and an outside host with known broken URLs, on one
// loopback server routed by Host: what `beebot map` and `beebot check` are tested against.
import http from 'node:http';
import { listenLoopback } from '../../fixtures/listen.js';

export const SITE = 'mapsite.test';
export const OUTSIDE = 'outside.test';

// path -> internal links (root-relative) and external paths on OUTSIDE
const PAGES: Record<string, { title: string; links: string[]; ext?: string[] }> = {
  '/': { title: 'Home', links: ['/a', '/b', '/c', '/missing1', '/old', '/photo', '/report'], ext: ['/ok', '/gone', '/head405'] },
  '/a': { title: 'A', links: ['/d', '/e', '/missing2', '/'], ext: ['/gone', '/get-gone'] },
  '/b': { title: 'B', links: ['/d', '/missing1', '/b', '/'] },
  '/c': { title: 'C', links: ['/e', '/f', '/old', '/old-broken'] },
  '/d': { title: 'D', links: ['/g', '/err500', '/photo'] },
  '/e': { title: 'E', links: ['/g'] },
  '/f': { title: 'F', links: ['/e'], ext: ['/ok'] },
  '/g': { title: 'G', links: ['/missing3', '/report'] },
  '/moved': { title: 'Moved', links: ['/gone-after-move'] },
};

export interface MapSite {
  port: number;
  url(path?: string): string;
  resolveArgs(): string[];
  /** paths of SITE answered with status >= 400 (robots.txt left out) */
  brokenSite: Set<string>;
  /** requests to OUTSIDE, as "METHOD path" */
  outsideRequests: string[];
  close(): Promise<void>;
}

export async function startMapSite(): Promise<MapSite> {
  let port = 0;
  const brokenSite = new Set<string>();
  const outsideRequests: string[] = [];
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    const send = (status: number, headers: Record<string, string>, body = '') => {
      res.writeHead(status, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (host === OUTSIDE) {
      outsideRequests.push(`${req.method} ${path}`);
      if (path === '/ok') return send(200, { 'content-type': 'text/html' }, 'ok');
      // HEAD refused, GET fine: not broken. HEAD refused and GET 404: broken.
      if (path === '/head405') return req.method === 'HEAD' ? send(405, {}) : send(200, { 'content-type': 'text/plain' }, 'fine');
      if (path === '/get-gone') return req.method === 'HEAD' ? send(405, {}) : send(404, {}, 'gone');
      return send(404, {}, 'gone');
    }
    if (path === '/robots.txt') return send(404, {});
    if (path === '/old') return send(301, { location: '/moved' });
    if (path === '/old-broken') return send(301, { location: '/gone-target' });
    if (path === '/gone-after-move') {
      brokenSite.add(path);
      return send(410, {});
    }
    if (path === '/err500') {
      brokenSite.add(path);
      return send(500, {});
    }
    if (path === '/photo') return send(200, { 'content-type': 'image/png', 'content-length': '2048' }, 'x'.repeat(2048));
    if (path === '/report') return send(200, { 'content-type': 'application/pdf', 'content-length': '5000' }, 'y'.repeat(5000));
    const page = PAGES[path];
    if (!page) {
      brokenSite.add(path);
      return send(404, { 'content-type': 'text/html' }, '<title>Not found</title>');
    }
    const links = [
      ...page.links.map((l) => `<a href="${l}">to ${l}</a>`),
      ...(page.ext ?? []).map((l) => `<a href="http://${OUTSIDE}:${port}${l}">outside ${l}</a>`),
    ];
    send(
      200,
      {
        'content-type': 'text/html; charset=utf-8',
        'last-modified': 'Tue, 03 Nov 2026 10:00:00 GMT',
        expires: 'Wed, 04 Nov 2026 10:00:00 GMT',
        etag: `"${page.title}-1"`,
        'cache-control': 'max-age=3600',
        'content-language': 'en',
      },
      `<!doctype html><html><head><title>${page.title}</title></head><body>${links.join(' ')}</body></html>`,
    );
  });
  port = await listenLoopback(server);
  return {
    port,
    url: (path = '/') => `http://${SITE}:${port}${path}`,
    resolveArgs: () => [SITE, OUTSIDE].flatMap((h) => ['--resolve', `${h}:${port}:127.0.0.1`]),
    brokenSite,
    outsideRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
