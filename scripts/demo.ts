// `npm run demo [-- crawl options]`: start the bundled fixture web on loopback, add its sites,
// crawl with a budget, print status, export the external links to CSV. Everything goes to
// ./demo/. Options after `--` go to the crawl (`npm run demo -- --delay 50` to watch it).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureWeb } from '../fixtures/server.js';
import { fixtureSeeds } from '../fixtures/web.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'beebot.js');
const dir = join(root, 'demo');
const db = process.env.BEEBOT_DB ?? join(dir, 'demo.db'); // BEEBOT_DB=postgres://… runs the demo on PostgreSQL

function beebot(...args: string[]): Promise<void> {
  console.log(`\n$ beebot ${args.map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--db', db, ...args], { stdio: 'inherit' });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`beebot ${args[0]} exited with ${code}`))));
  });
}

const web = await startFixtureWeb();
try {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`fixture web on 127.0.0.1:${web.port}: ${fixtureSeeds.map((s) => s.host).join(', ')}`);
  const csv = ['url,name,short,group', ...fixtureSeeds.map((s) => `${web.url(s.host)},"${s.name}",${s.short},${s.group}`)];
  writeFileSync(join(dir, 'seeds.csv'), csv.join('\n') + '\n');

  await beebot('seeds', 'import', join(dir, 'seeds.csv'));
  await beebot('seeds', 'list');
  // The fixture server doubles as an HTTP proxy for its .test hosts; --delay 20 keeps the demo watchable.
  await beebot('crawl', '--budget', '150', '--delay', '20', '--proxy', `http://127.0.0.1:${web.port}`, ...process.argv.slice(2));
  await beebot('status');
  await beebot('export', join(dir, 'external.csv'));
  const lines = readFileSync(join(dir, 'external.csv'), 'utf8').split('\r\n');
  console.log(`\n${join('demo', 'external.csv')}: ${lines.length - 2} external links; the first five:`);
  console.log(lines.slice(0, 6).join('\n'));
  console.log(`\nThe database is ${join('demo', 'demo.db')}: try 'node bin/beebot.js --db demo/demo.db status --json'.`);
} finally {
  await web.close();
}
