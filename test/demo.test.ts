// `npm run demo`: it ends by naming the commands to look at next, and they work as printed; its
// counts use the words and figures of the crawl summary and status.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/cli.js';

const DEMO = fileURLToPath(new URL('../dist/scripts/demo.js', import.meta.url));

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

let tmp: ReturnType<typeof tempDir>;
let demo: { code: number | null; out: string };
beforeAll(async () => {
  tmp = tempDir();
  demo = await run(process.execPath, [DEMO], tmp.dir, { BEEBOT_DEMO_DIR: join(tmp.dir, 'demo') });
}, 120_000);
afterAll(() => tmp?.cleanup());

describe('npm run demo', () => {
  it('ends naming report, map and hosts with commands that run as printed', async () => {
    expect(demo.code, demo.out).toBe(0);
    const next = demo.out.slice(demo.out.indexOf('What to look at next'));
    const commands = next.split('\n').filter((l) => l.startsWith('  node '));
    expect(commands.map((c) => / (report|map|hosts)\b/.exec(c)?.[1])).toEqual(['report', 'map', 'hosts']);
    for (const c of commands) {
      const r = await run('sh', ['-c', c.trim()], tmp.dir);
      expect(r.code, `${c}\n${r.out}`).toBe(0);
    }
    expect(existsSync(join(tmp.dir, 'demo', 'report.html'))).toBe(true);
    expect(existsSync(join(tmp.dir, 'demo', 'map-HIT.html'))).toBe(true);
  });

  it("counts the export's rows as (page, external URL) pairs and distinct URLs as the summary and status do", () => {
    const summary = /database: \d+ HTML pages of the \d+ fetched \(\d+ others: not HTML, errors or redirects\), budget \d+; (\d+) distinct external URLs, (\d+) outside hosts/.exec(demo.out);
    const header = demo.out.split('\n').find((l) => l.startsWith('id\tsite\t'))!.split('\t');
    const total = demo.out.split('\n').find((l) => l.startsWith('\ttotal\t'))!.split('\t');
    const col = (name: string) => total[header.indexOf(name)];
    const status = [null, col('ext URLs'), col('ext hosts'), col('ext pairs')];
    const exported = /external\.csv: (\d+) rows, one per \(page, external URL\) pair; (\d+) distinct external URLs on (\d+) outside hosts/.exec(demo.out);
    expect(summary && status && exported, demo.out).toBeTruthy();
    expect([exported![2], exported![3]]).toEqual([summary![1], summary![2]]);
    expect([exported![1], exported![2], exported![3]]).toEqual([status![3], status![1], status![2]]);
    expect(demo.out).not.toMatch(/\d+ external links/);
  });
});
