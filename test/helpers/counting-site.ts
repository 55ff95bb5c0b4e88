import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { repeatWhileOpen } from '../../fixtures/hostile.js';
import { listenLoopback } from '../../fixtures/listen.js';

export interface CountingSite {
  port: number;
  /** requests for a path so far */
  hits(path: string): number;
  /** ends every socket and timer */
  close(): Promise<void>;
}

/**
 * A loopback site whose `route` answers each request by its path (`every` repeats a write while
 * the response is open; `req` gives the raw socket for answers that are not HTTP).
 */
export async function serveCounting(
  route: (path: string, res: ServerResponse, every: (ms: number, fn: () => void) => void, req: IncomingMessage) => void,
): Promise<CountingSite> {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    route(path, res, repeatWhileOpen(res, timers), req);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  const port = await listenLoopback(server);
  return {
    port,
    hits: (p) => hits.get(p) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearInterval(t);
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
