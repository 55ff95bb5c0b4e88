import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:http';
import { listenLoopback } from '../../fixtures/listen.js';

export interface Page {
  body: string;
  etag: string;
  modified: Date;
  status?: number;
}

export interface Seen {
  path: string;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  status: number;
}

/**
 * A loopback site that honours conditional requests (If-None-Match, If-Modified-Since → 304);
 * `pages` may be changed between runs. `delayMs`: each answer waits this long (to stop a run mid-way).
 */
export async function conditionalSite(pages: Map<string, Page>, delayMs = 0) {
  const seen: Seen[] = [];
  const respond = (req: IncomingMessage, answer: (status: number, headers?: Record<string, string>, body?: string) => void) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const p = pages.get(path);
    if (!p || p.status) return answer(p?.status ?? 404);
    const validators = { etag: p.etag, 'last-modified': p.modified.toUTCString() };
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    // RFC 9110 13.2.2: If-None-Match wins; If-Modified-Since only without it.
    const fresh = inm !== undefined ? inm === p.etag : ims !== undefined && Math.floor(p.modified.getTime() / 1000) <= Date.parse(ims) / 1000;
    if (fresh) return answer(304, validators);
    answer(200, { 'content-type': 'text/html', ...validators }, `<html><body>${p.body}</body></html>`);
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const answer = (status: number, headers: Record<string, string> = {}, body = '') => {
      if (path !== '/robots.txt') seen.push({ path, ifNoneMatch: req.headers['if-none-match'], ifModifiedSince: req.headers['if-modified-since'], status });
      res.writeHead(status, headers).end(body);
    };
    if (delayMs > 0 && path !== '/robots.txt') setTimeout(() => respond(req, answer), delayMs);
    else respond(req, answer);
  });
  const port = await listenLoopback(server);
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
