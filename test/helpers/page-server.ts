import { createServer } from 'node:http';
import { listenLoopback } from '../../fixtures/listen.js';

/**
 * A loopback site made of fixed pages by path (404 elsewhere), HTML as given or wrapped by `wrap`.
 * The order and focus tests crawl such hand-made sites.
 */
export async function servePages(pages: Record<string, string>, wrap: (body: string) => string = (b) => b): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const body = pages[new URL(req.url ?? '/', 'http://x').pathname];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(wrap(body));
  });
  const port = await listenLoopback(server);
  return { port, close: () => new Promise((r) => server.close(() => r())) };
}
