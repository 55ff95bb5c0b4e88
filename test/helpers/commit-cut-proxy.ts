import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that cuts a connection after a COMMIT reached the server: the
 * server commits, its answer is dropped, and the client sees the connection lost (an ambiguous
 * commit). It reads the client's side of the wire protocol (v3): a transaction that ran the
 * prepared statement whose SQL matches `marked` has its COMMIT cut, for the pull numbers in `cutAt`
 * (1-based, counted over all connections). Everything else passes through untouched.
 */
export interface CommitCutProxy {
  url: string;
  /** How many COMMITs were cut so far. */
  cuts(): number;
  close(): Promise<void>;
}

export async function startCommitCutProxy(target: string, marked: RegExp, cutAt: number[]): Promise<CommitCutProxy> {
  const to = new URL(target);
  let seen = 0;
  let cut = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(to.port), to.hostname);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => open.delete(client) && upstream.destroy());
    upstream.on('close', () => open.delete(upstream) && client.destroy());
    client.on('error', drop);
    upstream.on('error', drop);

    const markedNames = new Set<string>();
    let inMarked = false; // the open transaction ran a marked statement
    let cutting = false; // a COMMIT was forwarded: its answer is not passed on
    let buf = Buffer.alloc(0);
    let started = false; // past the untyped start-up messages (SSL/GSS requests, StartupMessage)

    upstream.on('data', (d) => {
      if (cutting) drop(); // the server answered the COMMIT: it is committed; the client never hears it
      else client.write(d);
    });
    client.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      let out = 0; // bytes of buf to forward
      for (;;) {
        if (!started) {
          if (buf.length - out < 8) break;
          const len = buf.readInt32BE(out);
          if (buf.length - out < len) break;
          const code = buf.readInt32BE(out + 4);
          out += len;
          if (code === 196608) started = true; // protocol 3.0 StartupMessage; others are SSL/GSS/cancel requests
          continue;
        }
        if (buf.length - out < 5) break;
        const type = String.fromCharCode(buf[out]!);
        const len = buf.readInt32BE(out + 1);
        if (buf.length - out < 1 + len) break;
        const body = buf.subarray(out + 5, out + 1 + len);
        out += 1 + len;
        if (type === 'P') {
          const [name, sql] = cstrings(body, 2);
          if (marked.test(sql!)) markedNames.add(name!);
        } else if (type === 'B') {
          const [, statement] = cstrings(body, 2);
          if (markedNames.has(statement!)) inMarked = true;
        } else if (type === 'Q') {
          const [sql] = cstrings(body, 1);
          if (/^\s*(COMMIT|ROLLBACK)\b/i.test(sql!)) {
            const commit = /^\s*COMMIT\b/i.test(sql!) && inMarked;
            inMarked = false;
            if (commit && cutAt.includes(++seen)) {
              cut++;
              cutting = true;
              upstream.write(buf.subarray(0, out)); // up to and with the COMMIT, then nothing more
              buf = Buffer.alloc(0);
              return;
            }
          }
        }
      }
      upstream.write(buf.subarray(0, out));
      buf = buf.subarray(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target);
  url.port = String(port);
  url.searchParams.set('sslmode', 'disable');
  return {
    url: url.toString(),
    cuts: () => cut,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The first `n` NUL-terminated strings of a message body. */
function cstrings(body: Buffer, n: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const end = body.indexOf(0, at);
    if (end < 0) break;
    out.push(body.toString('utf8', at, end));
    at = end + 1;
  }
  return out;
}
