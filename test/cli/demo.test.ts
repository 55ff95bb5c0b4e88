// `npm run demo`: it ends by naming the commands to look at next, and they work as printed; its
// counts use the words and figures of the crawl summary and status.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';

const DEMO = fileURLToPath(new URL('../../dist/scripts/demo.js', import.meta.url));

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
    const next = demo.out.slice(demo.out.indexOf('What to look at next'), demo.out.indexOf('To go on with the tour'));
    // The demo writes the report itself, network section included, and says where it is.
    expect(demo.out).toMatch(/^The report is demo\/report\.html: open it in a browser/m);
    const page = readFileSync(join(tmp.dir, 'demo', 'report.html'), 'utf8');
    expect(page).toContain('<h2>Network</h2>');
    expect(JSON.parse(/<script type="application\/json" id="network-data">(.*?)<\/script>/s.exec(page)![1]!).nodes.length).toBeGreaterThan(5);
    const commands = next.split('\n').filter((l) => l.startsWith('  node '));
    expect(commands.map((c) => / (report|map|hosts)\b/.exec(c)?.[1])).toEqual(['report', 'map', 'hosts']);
    for (const c of commands) {
      const r = await run('sh', ['-c', c.trim()], tmp.dir);
      expect(r.code, `${c}\n${r.out}`).toBe(0);
    }
    expect(existsSync(join(tmp.dir, 'demo', 'report.html'))).toBe(true);
    expect(existsSync(join(tmp.dir, 'demo', 'map-HIT.html'))).toBe(true);
  });

  it('ends with a command that brings its web back, and the crawl it prints then goes on from the demo database', async () => {
    const after = demo.out.slice(demo.out.indexOf('To go on with the tour')).split('\n').filter((l) => l.startsWith('  node '));
    expect(after, demo.out).toHaveLength(2);
    const [serveLine, crawlLine] = after.map((l) => l.trim());
    expect(serveLine).toMatch(/demo\.js --serve demo\/demo\.db$/);
    expect(crawlLine).toMatch(/ crawl --budget 300$/);
    // exec: the shell becomes the server, so the signal below reaches it
    const serving = spawn('sh', ['-c', `exec ${serveLine}`], { cwd: tmp.dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const closed = new Promise<number | null>((r) => serving.on('close', (code) => r(code)));
    try {
      let said = '';
      serving.stdout.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        serving.stdout.on('data', (d: string) => ((said += d).includes(`${crawlLine}\n`) ? resolve() : undefined));
        serving.on('close', () => reject(new Error(`the demo web did not come up: ${said}`)));
      });
      expect(said).toMatch(/^demo web on 127\.0\.0\.1:\d+, the proxy saved in demo\/demo\.db; Ctrl-C stops it/);
      const more = await run('sh', ['-c', crawlLine!], tmp.dir);
      expect(more.code, more.out).toBe(0);
      expect(more.out).toMatch(/^resuming: 150 of 300 pages done/m);
      // the fixture web has fewer than 300 pages: the crawl fetches the rest of them
      // the fixture web's failing hosts (down.test, a page that resets) leave their pages waiting
      expect(more.out).toMatch(/^stopped: no site has a page to fetch in this run: \d+ exhausted(, \d+ waiting)?; the \d+ pages? left are accounted for below$/m);
      const run2 = Number(/^this run: ([\d,]+) pages/m.exec(more.out)?.[1]?.replace(/,/g, ''));
      expect(run2).toBeGreaterThan(40);
      expect(more.out).toMatch(new RegExp(`^database: [\\d,]+ HTML pages of the ${(150 + run2).toLocaleString('en-US')} fetched`, 'm'));
    } finally {
      serving.kill('SIGINT');
    }
    expect(await closed).toBe(0);
  }, 120_000);

  it("counts the export's rows as (page, external URL) pairs and distinct URLs as the summary and status do", () => {
    const summary = /database: [\d,]+ HTML pages of the [\d,]+ fetched \([\d,]+ others: not HTML, errors or redirects\), budget [\d,]+; ([\d,]+) distinct external URLs, ([\d,]+) outside hosts/.exec(demo.out)?.map((n) => n.replace(/,/g, ''));
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
