import { createServer } from 'node:http';
import { listenLoopback } from '../../fixtures/listen.js';

/** A file served as it is: its Content-Type and bytes (robots.txt, a sitemap, a gzip file). */
export interface RawFile {
  type: string;
  body: string | Buffer;
  /** sent a byte every this many ms, never ending (a hostile server that trickles) */
  trickle?: number;
  /** the HTTP status (default 200) */
  status?: number;
}

/**
 * A loopback site made of fixed pages by path (404 elsewhere), HTML as given or wrapped by `wrap`,
 * or a RawFile served as it is. A key 'host/path' answers for that host only (several sites on
 * one server, reached by --resolve), before a key '/path' for any host. The order and focus tests
 * crawl such hand-made sites.
 */
export async function servePages(
  pages: Record<string, string | RawFile>, wrap: (body: string) => string = (b) => b,
): Promise<{ port: number; close: () => Promise<void>; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    requests.push(host + (req.url ?? '/'));
    const page = pages[host + path] ?? pages[path];
    if (page === undefined) return void res.writeHead(404).end();
    if (typeof page !== 'string' && page.trickle) {
      res.writeHead(200, { 'content-type': page.type });
      const body = Buffer.from(page.body);
      let at = 0;
      const timer = setInterval(() => res.write(body.subarray(at % body.length, (at++ % body.length) + 1)), page.trickle);
      return void res.on('close', () => clearInterval(timer));
    }
    if (typeof page !== 'string') return void res.writeHead(page.status ?? 200, { 'content-type': page.type }).end(page.body);
    res.writeHead(200, { 'content-type': 'text/html' }).end(wrap(page));
  });
  const port = await listenLoopback(server);
  return { port, close: () => new Promise((r) => server.close(() => r())), requests };
}
