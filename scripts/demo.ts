// `npm run demo [-- crawl options]`: start the bundled fixture web on loopback, add its sites,
// crawl with a budget, print status, export the external links to CSV, write the HTML report, and name the commands
// to look at the result next. Everything goes to ./demo/ (BEEBOT_DEMO_DIR: elsewhere). Options
// after `--` go to the crawl (`npm run demo -- --delay 50` to watch it).
// `node dist/scripts/demo.js --serve [database]`: start the fixture web again, where the demo
// database's saved proxy points, until Ctrl-C, so that the tour can go on (crawl more, resume).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureWeb } from '../fixtures/server.js';
import { fixtureSeeds } from '../fixtures/web.js';
import { helpFromHeader } from './script-help.js';

helpFromHeader(import.meta.url);

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'beebot.js');
const dir = process.env.BEEBOT_DEMO_DIR ?? join(root, 'demo');
const db = process.env.BEEBOT_DB ?? join(dir, 'demo.db'); // BEEBOT_DB=postgres://… runs the demo on PostgreSQL
/** A path as the user types it from where the demo was started. */
const here = (p: string) => {
  if (p.includes('://')) return p;
  const r = relative(process.cwd(), p);
  return r === '' ? '.' : r.startsWith('..') ? p : r;
};
const quote = (a: string) => (/[\s"]/.test(a) ? JSON.stringify(a) : a);

function beebot(...args: string[]): Promise<void> {
  console.log(`\n$ beebot ${args.map(quote).join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--db', db, ...args], { stdio: 'inherit' });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`beebot ${args[0]} exited with ${code}`))));
  });
}

/** A command's stdout, not shown. */
function capture(...args: string[]): Promise<string> {
  return captureFrom(db, ...args);
}

function captureFrom(database: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--db', database, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`beebot ${args[0]} exited with ${code}`))));
  });
}

const cliFor = (database: string) => `node ${quote(here(bin))} --db ${quote(here(database))}`;
/** The crawl that goes on from the demo's: a larger budget, through the saved proxy. */
const goOn = (database: string) => `${cliFor(database)} crawl --budget 300`;

if (process.argv[2] === '--serve') await serve(process.argv[3] ?? db);
else await demo();

/**
 * The demo web again, on the port the database's saved proxy names: the fixture pages spell
 * that port in their links, so a web on another port would be another web to the crawl.
 */
async function serve(database: string): Promise<void> {
  const proxy = (await captureFrom(database, 'config', 'get', 'proxy').catch(() => '')).trim();
  const port = /^http:\/\/127\.0\.0\.1:(\d+)\/?$/.exec(proxy)?.[1];
  if (port === undefined) {
    console.error(`demo: ${here(database)} has no demo proxy saved (${proxy || 'none'}): run npm run demo first`);
    process.exit(1);
  }
  const web = await startFixtureWeb({ port: Number(port) }).catch((err: NodeJS.ErrnoException) => {
    console.error(`demo: cannot listen on 127.0.0.1:${port}, the port ${here(database)} crawls through (${err.code ?? err.message}); stop what uses it and run this again`);
    process.exit(1);
  });
  console.log(`demo web on 127.0.0.1:${web.port}, the proxy saved in ${here(database)}; Ctrl-C stops it. In another terminal, go on with the tour:`);
  console.log(`  ${goOn(database)}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await web.close();
}

async function demo(): Promise<void> {
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
    const rows = readFileSync(join(dir, 'external.csv'), 'utf8').split('\r\n').filter((l) => l !== '');
    const totals = (JSON.parse(await capture('status', '--json')) as { totals: { external_urls: number; external_hosts: number } }).totals;
    console.log(
      `\n${here(join(dir, 'external.csv'))}: ${rows.length - 1} rows, one per (page, external URL) pair;` +
        ` ${totals.external_urls} distinct external URLs on ${totals.external_hosts} outside hosts. The first five rows:`,
    );
    console.log(rows.slice(0, 6).join('\n'));

    const report = join(dir, 'report.html');
    await beebot('report', report, '--quiet');
    console.log(
      `\nThe report is ${here(report)}: open it in a browser (one file, works offline). It has the sites, harvest curves,` +
        ' the top outside hosts, and the network: who links to whom, with the interlinks and co-links beside it.',
    );

    const cli = cliFor(db);
    const site = fixtureSeeds.find((s) => s.short === 'HIT') ?? fixtureSeeds[0]!;
    console.log(`\nWhat to look at next (the database is ${here(db)}):`);
    for (const [cmd, what] of [
      [`report ${quote(here(join(dir, 'report.html')))}`, 'one HTML page: the sites, harvest curves, top outside hosts; open it in a browser'],
      [`map ${site.short} ${quote(here(join(dir, `map-${site.short}.html`)))}`, `the hierarchical map of ${site.host}`],
      ['hosts', 'the companion set: outside hosts by the number of sites linking to them'],
    ] as const) {
      console.log(`  ${cli} ${cmd}\n      ${what}`);
    }
    // The web stops with the demo, and the database keeps its proxy: say how to bring it back.
    console.log('\nTo go on with the tour (crawl more, resume), start the demo web again; it stays up until Ctrl-C:');
    console.log(`  node ${quote(here(fileURLToPath(import.meta.url)))} --serve ${quote(here(db))}`);
    console.log(`then, in another terminal:\n  ${goOn(db)}`);
  } finally {
    await web.close();
  }
}
