import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/beebot.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the real CLI as a child process. Asynchronous on purpose: the fixture server lives in the
 * test process, and a blocking spawnSync would stop it from answering. `stdout`: a file descriptor
 * the CLI writes to instead of a pipe (e.g. /dev/full opened); `prefix`: a command the CLI runs under
 * (it receives node, the CLI and its arguments), e.g. `unshare -m` to mount something for this run only;
 * `bin`: another copy of bin/beebot.js to run (see reachable-copy.ts).
 */
export function beebot(
  args: string[],
  opts: { db: string; input?: string; env?: Record<string, string>; stdout?: number; prefix?: string[]; bin?: string },
): Promise<CliResult> & { child: ChildProcess } {
  const argv = [process.execPath, opts.bin ?? BIN, '--db', opts.db, ...args];
  const [cmd, ...rest] = [...(opts.prefix ?? []), ...argv];
  const child = spawn(cmd!, rest, {
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['pipe', opts.stdout ?? 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.end(opts.input ?? '');
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  }) as Promise<CliResult> & { child: ChildProcess };
  done.child = child;
  return done;
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'beebot-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
