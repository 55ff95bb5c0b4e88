// The replay web (../shared/replay-web) as the scripts use it: where it lives, its sites, its
// proxy, and a beebot run against it. Shared by replay-web.ts, harvest-graph.ts and bench-harvest.ts.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
export const bin = resolve(here, '../../bin/beebot.js');
export const shared = resolve(here, '../../../shared/replay-web');
/** REPLAY_ROOT (default ~/.cache/beebot-devweb) holds the sites; made by setup.sh when missing. */
export const root = process.env.REPLAY_ROOT ?? join(homedir(), '.cache/beebot-devweb');
/** REPLAY_ROOT_C (default ~/.cache/beebot-devweb-c) holds set C (catalog-c.tsv: small sites, some almost barren). */
export const rootC = process.env.REPLAY_ROOT_C ?? join(homedir(), '.cache/beebot-devweb-c');
/** The trusted CA for the replay web's https:// links. */
export const caFile = join(root, 'tls/ca.pem');

/** The sites of a replay web root (made by setup.sh from `catalog` when missing). */
export function ensureSites(dir = root, catalog = 'catalog.tsv'): { url: string; host: string; group: string }[] {
  if (!existsSync(join(dir, 'sites.tsv')) && !existsSync(join(dir, 'seeds.tsv'))) {
    console.error(`setting up the replay web in ${dir} (apt-get download, a few minutes)`);
    const r = spawnSync('bash', [join(shared, 'setup.sh'), '--catalog', join(shared, catalog), dir, '--no-measure'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('replay-web setup failed');
  }
  const file = existsSync(join(dir, 'sites.tsv')) ? 'sites.tsv' : 'seeds.tsv';
  const rows = readFileSync(join(dir, file), 'utf8').trim().split('\n').map((l) => l.split('\t'));
  // sites.tsv: host, start, group, ...; seeds.tsv: host, start, group, package
  return rows.filter((r) => r[1]?.startsWith('http')).map((r) => ({ host: r[0]!, url: r[1]!, group: r[2]! }));
}

// Port 0: the system picks a free port (random ones collided when two benches ran at once).
export async function startProxy(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(shared, 'serve.mjs'), '--root', root, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((ok, fail) => {
    child.stdout!.on('data', (d) => {
      const m = /proxy on http:\/\/[^:]+:(\d+)\//.exec(String(d));
      if (m) ok(Number(m[1]));
    });
    child.on('exit', (code) => fail(new Error(`replay proxy exited ${code}`)));
  });
  return { port, child };
}

export function beebot(db: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [bin, '--db', db, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
    child.on('close', (code) => (code === 0 ? ok(out) : fail(new Error(`beebot ${args[0]} exited ${code}: ${err}`))));
  });
}

/** Import the sites of `groups` (all by default) as seeds, in the replay web's order, and crawl them through its proxy; returns the seconds the crawl took. */
export async function crawlReplay(db: string, crawlArgs: string[], groups?: string[]): Promise<number> {
  const sites = ensureSites().filter((s) => !groups || groups.includes(s.group));
  const seeds = `${db}.seeds.csv`;
  writeFileSync(seeds, ['url,name,short,group', ...sites.map((s) => `${s.url},${s.host},${s.host},${s.group}`)].join('\n'));
  await beebot(db, ['seeds', 'import', seeds]);
  const proxy = await startProxy();
  const t0 = performance.now();
  try {
    await beebot(db, ['crawl', '--proxy', `http://127.0.0.1:${proxy.port}`, '--delay', '0', ...crawlArgs], { NODE_EXTRA_CA_CERTS: caFile });
  } finally {
    proxy.child.kill('SIGTERM');
  }
  return (performance.now() - t0) / 1000;
}
