import { createServer } from 'node:http';
import { listenLoopback } from '../../fixtures/listen.js';

/**
 * A loopback site for `beebot watch`: a home page linking its hubs (default /hub/), each listing
 * the items the test published on it so far (/hub/i1, ...). A hub's answer is made when its
 * request arrives and sent `o.delayMs` later; `o.publishDuringNext` publishes one item on /hub/
 * halfway through the next delay of its answer (after that answer was made).
 */
export async function hubSite(hubs: readonly string[] = ['/hub/']) {
  const published: { path: string; at: number }[] = [];
  const publish = (hub = hubs[0]!) => published.push({ path: `${hub}i${published.length + 1}`, at: Date.now() });
  const o = { delayMs: 0, publishDuringNext: false };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const html = (b: string) => `<html><body>${b}</body></html>`;
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(html(hubs.map((h) => `<a href="${h}">hub</a>`).join(' ')));
    if (hubs.includes(path)) {
      const page = html(published.filter((p) => p.path.startsWith(path)).map((p) => `<a href="${p.path}">item</a>`).join(' ') || '<p>nothing yet</p>');
      if (o.publishDuringNext && path === hubs[0]) {
        o.publishDuringNext = false;
        setTimeout(publish, o.delayMs / 2);
      }
      return void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page), o.delayMs);
    }
    if (published.some((p) => p.path === path)) return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('<p>an item</p>'));
    res.writeHead(404).end();
  });
  const port = await listenLoopback(server);
  return {
    port, published, publish, o,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}
