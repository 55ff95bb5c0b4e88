// The thread of FrozenWatch (frozen-watch.ts): it shares the call's start and the limit with the
// thread that makes the calls, and asks the server on a connection of its own before it ends the
// process.
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { workerData } from 'node:worker_threads';

const { state, url, name } = workerData as { state: Float64Array; url: string; name: string };
let probing = false;

/** Whether the server answers a query within `ms`. */
async function answers(ms: number): Promise<boolean> {
  // loaded only when a call has lasted long: a healthy crawl never pays for it (require: an
  // import() here waited for the blocked thread)
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: ms, query_timeout: ms });
  client.on('error', () => {});
  const timer = new Promise<false>((r) => setTimeout(() => r(false), ms + 100).unref());
  try {
    return await Promise.race([client.connect().then(() => client.query('SELECT 1')).then(() => true), timer]);
  } catch {
    return false;
  } finally {
    void client.end().catch(() => {});
  }
}

const within = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

setInterval(() => {
  const since = state[0]!;
  const limit = state[1]!;
  if (probing || since === 0 || limit <= 0 || Date.now() - since < limit / 2) return;
  probing = true;
  void answers(Math.max(500, limit / 2)).then((alive) => {
    probing = false;
    if (alive || state[0] !== since) return; // a long query on a live server, or the call ended meanwhile
    try {
      writeSync(2, `beebot: PostgreSQL at ${name} has not answered for ${within(Math.round(Date.now() - since))} (frozen, or its disk hangs); ending the process (exit status 137); run it again once the server answers\n`);
    } catch {
      // stderr gone: the process ends all the same
    }
    process.kill(process.pid, 'SIGKILL');
  });
}, 250);
