// `npm run bench:scale -- --help` prints its options and runs nothing; an unknown option is refused.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../dist/scripts/bench-scale.js', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('bench:scale options', () => {
  it('--help prints the usage and exits 0 without serving a web or crawling', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm run bench:scale/);
    for (const o of ['--sites', '--budget', '--reps', '--dead', '--import', '--parts', '--cpu-prof']) expect(r.stdout).toContain(o);
    expect(r.stderr).not.toContain('beebot bench:scale:');
  });

  it('an unknown option exits 2 with the usage', () => {
    const r = run('--site', '100');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Unknown option '--site'");
    expect(r.stderr).toContain('usage: npm run bench:scale');
  });
});
