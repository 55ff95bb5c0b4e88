import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The installed packages the CLI loads at run time: the dependencies' closure, not the dev tools. */
function runtimePackages(): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name) || !existsSync(join(ROOT, 'node_modules', name, 'package.json'))) return; // an optional one not installed
    seen.add(name);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep);
  };
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  for (const dep of Object.keys({ ...own.dependencies, ...own.optionalDependencies })) visit(dep);
  return [...seen];
}

/** chmod -R a+rX: every file readable, every folder (and what was executable) enterable, by anyone. */
function readableByAll(path: string): void {
  const st = statSync(path);
  const x = st.isDirectory() || st.mode & 0o111 ? 0o111 : 0;
  chmodSync(path, (st.mode & 0o7777) | 0o444 | x);
  if (st.isDirectory()) for (const name of readdirSync(path)) readableByAll(join(path, name));
}

/**
 * The built CLI and the packages it loads, copied into a fresh directory of mode 755, for a test
 * that runs the CLI as another user: a checkout may sit where only its owner can reach (a
 * directory of mode 700, root's home), and that user could not load bin/beebot.js from there.
 * Returns the copy's bin/beebot.js and its cleanup.
 */
export function reachableCopy(): { bin: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'beebot-cli-'));
  chmodSync(dir, 0o755);
  for (const part of ['package.json', 'bin', 'dist', 'data']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  for (const name of runtimePackages()) cpSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), { recursive: true });
  readableByAll(dir); // a checkout made under umask 077 has folders only its owner may enter
  return { bin: join(dir, 'bin', 'beebot.js'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
