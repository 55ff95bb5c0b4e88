import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PgCluster {
  /** e.g. postgres://postgres@127.0.0.1:54321/postgres (trust authentication, no password) */
  url: string;
  port: number;
  /** Stops the server (immediate mode: nothing to keep) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL cluster for tests: initdb in a fresh temp directory, pg_ctl start on a
 * free loopback port, the socket in that directory too (no clash with a system server). As root
 * the server must run as the `postgres` user (it refuses root), so the directory is handed to it
 * and the tools run through runuser. Durability is off (initdb --no-sync, fsync, full-page writes,
 * synchronous commit): a test cluster is never kept, so nothing needs to reach the disk.
 */
export async function startPostgres(): Promise<PgCluster> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'beebot-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args], { timeout: 60_000 }) : run(join(bin, name), args, { timeout: 60_000 });
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  // from here on, a dying test process takes the cluster with it (see startWatchdog)
  const watchdog = startWatchdog(join(bin, 'pg_ctl'), data, dir, asRoot);
  const cleanup = () => {
    watchdog.cancel();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await tool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
  } catch (err) {
    cleanup();
    throw new Error(`initdb failed: ${failure(err)}`);
  }

  // A port found free can be taken before the server binds it: try again with another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    rmSync(log, { force: true }); // so the bind check below reads this attempt's log only
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`;
    try {
      // -l: without a log file the server inherits our stdout/stderr and execFile never returns.
      await tool('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
    } catch (err) {
      const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
      if (attempt < 5 && /could not bind|already in use/i.test(text)) continue;
      stopNow(bin, data, asRoot);
      cleanup();
      throw new Error(`pg_ctl start failed: ${failure(err)}\n${text.slice(-2000)}`);
    }
    let stopped = false;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await tool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
        } finally {
          cleanup();
        }
      },
    };
  }
}

/**
 * The server binaries: `pg_config --bindir` when it names a directory with initdb (Debian's
 * pg_config from libpq-dev alone says /usr/bin), else the newest /usr/lib/postgresql/N/bin.
 */
export function postgresBinDir(where = { pgConfig: 'pg_config', root: '/usr/lib/postgresql' }): string {
  const has = (d: string) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl'));
  try {
    const d = execFileSync(where.pgConfig, ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (d && has(d)) return d;
  } catch {
    // no pg_config: look where Debian puts the servers
  }
  const root = where.root;
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (has(join(root, v, 'bin'))) return join(root, v, 'bin');
  throw new Error(
    `PostgreSQL is not installed: no initdb/pg_ctl found (${where.pgConfig} --bindir, ${root}/*/bin). ` +
      "Install Debian's postgresql package (apt-get install postgresql); .ci/run does so when it is missing.",
  );
}

// A test process can die without calling stop() (a failed hook, vitest ending its worker with a
// signal, kill -9): an exit handler would not run then. A small detached shell waits for this
// process to go and then stops the server and removes its directory, so no server outlives its test.
const WATCHDOG = `while kill -0 "$1" 2>/dev/null; do sleep 1; done
if [ "$5" = 1 ]; then runuser -u postgres -- "$2" -D "$3" -m immediate -w stop; else "$2" -D "$3" -m immediate -w stop; fi
rm -rf "$4"`;

function startWatchdog(pgCtl: string, data: string, dir: string, asRoot: boolean): { cancel(): void } {
  const child = spawn('sh', ['-c', WATCHDOG, 'beebot-pg-watchdog', String(process.pid), pgCtl, data, dir, asRoot ? '1' : '0'], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return {
    cancel() {
      // its own process group (detached): the shell and its sleep
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

function stopNow(bin: string, data: string, asRoot: boolean): void {
  const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
  if (asRoot) spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args], { stdio: 'ignore' });
  else spawnSync(join(bin, 'pg_ctl'), args, { stdio: 'ignore' });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function failure(err: unknown): string {
  const e = err as { message?: string; stderr?: string };
  return (e.stderr?.trim() || e.message || String(err)).split('\n').slice(0, 5).join('\n');
}

let databases = 0;
/** A new empty database in the cluster; its URL (postgres://…/beebot_N). */
export async function createDatabase(cluster: PgCluster): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    const name = `beebot_${process.pid}_${++databases}`;
    await client.query(`CREATE DATABASE ${name}`);
    return cluster.url.replace(/\/[^/]*$/, `/${name}`);
  } finally {
    await client.end();
  }
}
