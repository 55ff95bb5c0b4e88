/**
 * Serves the generated web (bench/web.ts) on one loopback server, sites routed by the Host
 * header, or by the URL of an absolute-form request line when a client uses us as its HTTP proxy
 * (wget). Counts requests, body bytes and connections so each run can show the work it was given.
 *
 * Run directly: `node dist/bench/web-server.js [port]` prints `listening on PORT` and serves until
 * SIGINT/SIGTERM (to look at the pages with curl --resolve).
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { defaultWeb, renderPage, type WebConfig } from './web.js';
import { listenLoopback } from '../fixtures/listen.js';

export interface Counters {
  requests: number;
  bytes: number;
  connections: number;
}

/** One request as the server saw it (epoch ms): the multi-worker tests check politeness on it. */
export interface Served {
  host: string;
  path: string;
  start: number;
  end: number;
}

export interface BenchWeb {
  port: number;
  readonly counters: Counters;
  close(): Promise<void>;
}

/** latencyMs: every response waits that long (a crawler then waits on the network, not the CPU); log: every request is appended. */
export async function startBenchWeb(cfg: WebConfig, opts: { port?: number; latencyMs?: number; log?: Served[] } = {}): Promise<BenchWeb> {
  let port = 0;
  const counters: Counters = { requests: 0, bytes: 0, connections: 0 };
  const server = http.createServer((req, res) => {
    const arrived = Date.now();
    if (opts.latencyMs) setTimeout(() => serve(req, res, arrived), opts.latencyMs);
    else serve(req, res, arrived);
  });
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, start: number) => {
    counters.requests++;
    const url = req.url ?? '/';
    const target = /^https?:\/\//i.test(url) ? new URL(url) : null;
    const page = target ? renderPage(cfg, target.host, target.pathname, port) : renderPage(cfg, req.headers.host ?? '', url, port);
    const body = page.body;
    counters.bytes += body.length;
    res.sendDate = false;
    res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    res.end(body);
    if (opts.log) {
      const u = target ?? new URL(url, `http://${req.headers.host ?? 'unknown'}`);
      opts.log.push({ host: u.hostname, path: u.pathname + u.search, start, end: Date.now() });
    }
  };
  server.on('connection', () => counters.connections++);
  // Idle keep-alive sockets must outlive a crawler's pauses between two pages of one host.
  server.keepAliveTimeout = 30_000;
  port = await listenLoopback(server, opts.port);
  let closing: Promise<void> | undefined;
  return {
    port,
    counters,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const web = await startBenchWeb(defaultWeb, { port: Number(process.argv[2] ?? 0) });
  console.log(`listening on ${web.port}`);
  const stop = () => void web.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
