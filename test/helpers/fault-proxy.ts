import { createServer, request, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { listenLoopback } from '../../fixtures/listen.js';

/**
 * A forward proxy in front of the replay web's (serve.mjs) that makes chosen hosts fail the way
 * real ones do: `robots502` hosts answer robots.txt with 502 (their pages are fine), `untrusted`
 * hosts are tunnelled to a TLS server whose self-signed certificate no machine trusts
 * (fixtures/tls). Everything else passes through unchanged.
 */
export interface FaultProxy {
  port: number;
  close(): Promise<void>;
}

const CERT = new URL('../../fixtures/tls/', import.meta.url);

export async function startFaultProxy(upstream: number, faults: { robots502?: readonly string[]; untrusted?: readonly string[] }): Promise<FaultProxy> {
  const robots502 = new Set(faults.robots502 ?? []);
  const untrusted = new Set(faults.untrusted ?? []);
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const tls = createTlsServer(
    { cert: readFileSync(new URL('self-signed.pem', CERT)), key: readFileSync(new URL('self-signed.key', CERT)) },
    (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>never read</title>'),
  );
  tls.on('tlsClientError', () => {});
  const tlsPort = await listenLoopback(tls);
  const proxy: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/');
    if (robots502.has(url.hostname) && url.pathname === '/robots.txt') return void res.writeHead(502).end('bad gateway');
    const up = request({ host: '127.0.0.1', port: upstream, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  proxy.on('connection', track);
  proxy.on('connect', (req, socket: Socket, head: Buffer) => {
    const host = (req.url ?? '').replace(/:\d+$/, '');
    const to = connect(untrusted.has(host) ? tlsPort : upstream, '127.0.0.1');
    track(to);
    to.on('close', () => socket.destroy());
    socket.on('close', () => to.destroy());
    if (untrusted.has(host)) {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      to.write(head);
    } else {
      to.write(`CONNECT ${req.url} HTTP/1.1\r\nHost: ${req.url}\r\n\r\n`);
      to.write(head);
    }
    socket.pipe(to).pipe(socket);
  });
  const port = await listenLoopback(proxy);
  return {
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => tls.close(r))]);
    },
  };
}
