// Crawl the whole fixture web once and write its trace (each site's rewards in BFS order), so
// `npm run bench:policies` can replay the fixture web next to the synthetic sets.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureWeb } from '../fixtures/server.js';
import { fixtureSeeds } from '../fixtures/web.js';

const bin = fileURLToPath(new URL('../../bin/beebot.js', import.meta.url));
const out = resolve(process.argv[2] ?? 'fixture-trace.json');

function beebot(db: string, args: string[]): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [bin, '--db', db, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
    child.on('close', (code) => (code === 0 ? ok() : fail(new Error(`beebot ${args[0]} exited ${code}: ${err}`))));
  });
}

const web = await startFixtureWeb();
const dir = mkdtempSync(join(tmpdir(), 'beebot-trace-'));
try {
  const db = join(dir, 'trace.db');
  const seeds = join(dir, 'seeds.csv');
  writeFileSync(seeds, ['url,name,short,group', ...fixtureSeeds.map((s) => `${web.url(s.host)},${s.short},${s.short},${s.group}`)].join('\n'));
  await beebot(db, ['seeds', 'import', seeds]);
  // Round-robin to exhaustion: every site's whole BFS sequence is recorded, whatever the policy.
  await beebot(db, ['crawl', '--policy', 'round-robin', '--delay', '0', '--concurrency', '1', ...web.resolveArgs()]);
  await beebot(db, ['trace', 'export', out]);
  console.log(`wrote ${out}`);
} finally {
  await web.close();
  rmSync(dir, { recursive: true, force: true });
}
