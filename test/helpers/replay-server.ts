import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { shared } from './shared.js';

// The replay web's server (../shared/replay-web/serve.mjs, the reference): it serves
// ROOT/hosts/HOST/PATH as http://HOST/PATH through a forward proxy, with ETag and Last-Modified
// from each file (`touch` makes a changed page), 404 for a missing file. Tests give it a small
// generated site in a temporary root, so the shared sites are never touched.
const SERVE = (): string => fileURLToPath(shared('replay-web/serve.mjs'));

export interface ReplayServer {
  port: number;
  child: ChildProcess;
  /** the request log so far, one line per answer ('200 GET host url', 304s logged once more) */
  log: () => string[];
}

export async function startReplayServer(root: string): Promise<ReplayServer> {
  const child = spawn(process.execPath, [SERVE(), '--root', root, '--port', '0', '--no-tls', '--log'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<number>((ok, fail) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /proxy on http:\/\/[^:]+:(\d+)\//.exec(out);
      if (m) ok(Number(m[1]));
    });
    child.on('exit', (code) => fail(new Error(`serve.mjs exited ${code}`)));
  });
  return { port, child, log: () => out.split('\n') };
}
