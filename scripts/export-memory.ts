// Peak memory of exports over a big database: fills a fresh database with N external links by direct
// SQL (default 1,000,000; no crawl), then runs the real CLI for each export and reports its peak RSS.
// Run: npx tsc -p . && node dist/scripts/export-memory.js [rows]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDb } from '../src/db/db.js';
import { insertSites } from '../src/store/sites.js';
import { helpFromHeader } from './script-help.js';

helpFromHeader(import.meta.url);

const rows = Number(process.argv[2] ?? 1_000_000);
const bin = fileURLToPath(new URL('../../bin/beebot.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'beebot-memory-'));
const db = join(dir, 'big.db');

// A preload that prints the process's peak resident set size (KiB) as it exits.
const PEAK = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))`;

function run(args: string[], stdout: 'ignore' | 'count'): Promise<{ kib: number; seconds: number; bytes: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', PEAK, bin, '--db', db, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let bytes = 0;
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (bytes += stdout === 'count' ? b.length : 0));
  child.stderr.on('data', (b: Buffer) => (stderr += b));
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      const m = /maxrss=(\d+)/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`beebot ${args.join(' ')} exited ${code}: ${stderr}`));
      resolve({ kib: Number(m[1]), seconds: (performance.now() - t0) / 1000, bytes });
    }),
  );
}

try {
  const d = openDb(db);
  insertSites(d, [{ url: new URL('https://big.example/'), short: 'big' }], 'standard');
  const t0 = performance.now();
  // 5,000 hosts, ~190-byte rows: anchor texts of typical length.
  d.exec(`WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ${rows})
    INSERT INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag, found_at)
    SELECT 1, 1, 'https://host-' || (n % 5000) || '.example/page/' || n, 'https://host-' || (n % 5000) || '.example/page/' || n,
           n % 6, 'anchor text number ' || n || ' with some words to make a row of typical size', '', 'a',
           strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || (n / 100) || ' seconds') FROM i`);
  d.close();
  console.log(`${rows.toLocaleString('en-US')} external links inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s (${(statSync(db).size / 2 ** 20).toFixed(0)} MiB database)`);
  console.log('export                               peak RSS    time   output');
  for (const [label, args, out] of [
    ['export external.csv', ['export', join(dir, 'external.csv')], join(dir, 'external.csv')],
    ['export external.jsonl', ['export', join(dir, 'external.jsonl')], join(dir, 'external.jsonl')],
    ['export graph.gexf', ['export', join(dir, 'graph.gexf')], join(dir, 'graph.gexf')],
    ['links external | (pipe)', ['links', 'external'], null],
  ] as const) {
    const r = await run([...args], out ? 'ignore' : 'count');
    const size = out ? statSync(out).size : r.bytes;
    console.log(`${label.padEnd(34)} ${(r.kib / 1024).toFixed(0).padStart(6)} MiB ${r.seconds.toFixed(1).padStart(6)} s ${(size / 2 ** 20).toFixed(0).padStart(5)} MiB`);
    if (out) rmSync(out);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
