// `npm run bench`: crawl the fixture web to exhaustion at --delay 0, several times per
// concurrency, and print median pages/s and database bytes per page. Figures, not assertions.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureWeb } from '../fixtures/server.js';
import { fixtureSeeds } from '../fixtures/web.js';

const bin = fileURLToPath(new URL('../../bin/beebot.js', import.meta.url));
const REPS = Number(process.env.BENCH_REPS ?? 5);

function run(db: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--db', db, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`beebot ${args[0]} exited ${code}`))));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const web = await startFixtureWeb();
const dir = mkdtempSync(join(tmpdir(), 'beebot-bench-'));
try {
  writeFileSync(join(dir, 'seeds.txt'), fixtureSeeds.map((s) => web.url(s.host)).join('\n'));
  const rows: string[] = [];
  const results = new Map<number, { rate: number[]; bytes: number[]; pages: number }>();
  // Alternate concurrencies within each repetition so machine noise hits all of them alike.
  for (let rep = 0; rep < REPS; rep++) {
    for (const c of [1, 4]) {
      const db = join(dir, `c${c}-${rep}.db`);
      await run(db, ['seeds', 'import', join(dir, 'seeds.txt')]);
      const t0 = performance.now();
      const out = await run(db, ['crawl', '--delay', '0', '--concurrency', String(c), ...web.resolveArgs()]);
      const seconds = (performance.now() - t0) / 1000;
      const pages = Number(/this run: (\d+) pages/.exec(out)![1]);
      // Checkpoint so the WAL is folded into the main file before measuring its size.
      await run(db, ['status']);
      const bytes = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
      const r = results.get(c) ?? { rate: [], bytes: [], pages };
      r.rate.push(pages / seconds);
      r.bytes.push(bytes / pages);
      results.set(c, r);
    }
  }
  rows.push(`fixture web crawl to exhaustion, --delay 0, ${REPS} repetitions (medians; wall time includes process start)`);
  rows.push(['concurrency', 'pages', 'pages/s', 'DB bytes/page'].join('\t'));
  for (const [c, r] of results) rows.push([c, r.pages, median(r.rate).toFixed(1), Math.round(median(r.bytes))].join('\t'));
  const [one, four] = [results.get(1)!, results.get(4)!];
  rows.push(`ratio pages/s concurrency 4 / 1: ${(median(four.rate) / median(one.rate)).toFixed(2)}`);
  console.log(rows.join('\n'));
} finally {
  await web.close();
  rmSync(dir, { recursive: true, force: true });
}
