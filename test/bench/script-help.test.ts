// Every script `npm run` starts answers --help with its usage and exits 0 without running; one
// that cannot read its options says so in a line and exits 2.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openingComment } from '../../scripts/script-help.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scripts = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).scripts as Record<string, string>;
const run = (file: string, ...args: string[]) => spawnSync(process.execPath, [`${root}${file}`, ...args], { encoding: 'utf8', timeout: 30_000 });
const files = [...new Set(Object.values(scripts).flatMap((c) => [...c.matchAll(/node (dist\/scripts\/[\w-]+\.js)/g)].map((m) => m[1]!)))];

describe('the scripts npm runs', () => {
  it('are found in package.json', () => {
    expect(files).toContain('dist/scripts/bench.js');
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it.each(files)('%s --help prints its usage and exits 0', (file) => {
    const r = run(file, '--help');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/npm run|node dist\/scripts|bench:/);
  });

  it('an option a script does not know: one line, exit 2', () => {
    const r = run('dist/scripts/bench-policies.js', '--no-such-option', '1');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('unknown option --no-such-option (--help lists the options)');
  });
});

describe("a script's opening comment", () => {
  it('is its leading // lines, or its first /** */ block', () => {
    expect(openingComment('// usage: x [--a N]\n//   more\nimport y from "y";\n// not this')).toBe('usage: x [--a N]\n  more');
    expect(openingComment('/**\n * bench:x: what it does.\n *\n *   npm run bench:x\n */\nimport y from "y";')).toBe('bench:x: what it does.\n\n  npm run bench:x');
  });
});
