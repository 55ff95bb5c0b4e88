// Real websites on loopback (../shared/replay-web: 20 documentation sites from Debian packages):
//   node dist/scripts/replay-web.js trace [out.json.gz]   crawl every site to the end, write the compact trace
//   node dist/scripts/replay-web.js live [--budget N] [--trace file]
//       crawl as a user would (default policy, --concurrency 1) and compare with what `simulate`
//       predicts from the committed trace: live equals replay.
//   node dist/scripts/replay-web.js order [--orders bfs,best-first,plain,shark-search,otie]
//       crawl sets A, B and A+B with each --order (default policy, 5,000 pages, --concurrency 1) and
//       print the site-new external URLs after 500 … 5,000 pages as % of the BFS oracle.
//   node dist/scripts/replay-web.js focus [--orders ...] [--topics 0,1,2]   (npm run bench:order runs order, then focus)
//       topic-focused crawls of all 20 sites (round-robin over the sites, so only the order inside a
//       site differs; 5,000 pages) for three topics the sites contain; harvest rate and target
//       recall after 500 … 5,000 pages, by labels made independently of the crawler (labelFile).
// REPLAY_ROOT (default ~/.cache/beebot-devweb) holds the sites; made by setup.sh when missing.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { openDb } from '../src/db/db.js';
import { compare } from '../src/schedule/sites/compare.js';
import { oracleCurve } from '../src/schedule/sites/oracle.js';
import { DEFAULTS } from '../src/schedule/sites/registry.js';
import { loadTrace } from '../src/cli/trace-file.js';
import { BANDIT_DEFAULT, defaults } from '../src/store/settings.js';
import { readTrace } from '../src/store/trace.js';
import { crawlReplay, ensureSites, root } from './replay-root.js';
import { helpFromHeader } from './script-help.js';

helpFromHeader(import.meta.url);

const here = fileURLToPath(new URL('.', import.meta.url));
const committedTrace = resolve(here, '../../bench/traces/replay-web.json.gz');

// Topics the replay sites contain, each with the phrase that labels a page relevant.
const FOCUS_TOPICS: [string, RegExp][] = [
  ['regular expressions', /regular expressions?/gi],
  ['HTTP authentication', /(?:http|basic|digest) authentication/gi],
  ['sparse matrices', /sparse matri(?:x|ces)/gi],
];

/** The file a replay URL is served from (serve.mjs: ROOT/hosts/HOST/PATH, a directory's index.html). */
function fileOf(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  let p = join(root, 'hosts', u.hostname, decodeURIComponent(u.pathname));
  if (existsSync(p) && statSync(p).isDirectory()) p = join(p, 'index.html');
  return existsSync(p) ? p : null;
}

/** Labelled without beebot: the page's text, tags stripped by a regular expression, names the topic 3 times or more. */
const labels = new Map<string, string>();
function labelFile(file: string, re: RegExp): boolean {
  let text = labels.get(file);
  if (text === undefined) {
    text = readFileSync(file, 'latin1').replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ').replace(/<[^>]*>/g, ' ');
    labels.set(file, text);
  }
  return (text.match(re) ?? []).length >= 3;
}

/** The relevant pages among those measure.py's independent breadth-first walk (level <= 5) reaches. */
function relevantSet(re: RegExp): Set<string> {
  ensureSites();
  const out = new Set<string>();
  for (const f of readdirSync(join(root, 'pages'))) {
    for (const row of readFileSync(join(root, 'pages', f), 'utf8').trim().split('\n').slice(1)) {
      const file = fileOf(row.split('\t')[6] ?? '');
      if (file && labelFile(file, re)) out.add(file);
    }
  }
  return out;
}

const [mode = 'live', ...rest] = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1]! : fallback;
};
const dir = mkdtempSync(join(tmpdir(), 'beebot-replay-'));
try {
  const db = join(dir, 'replay.db');
  if (mode === 'trace') {
    const out = resolve(rest[0] ?? committedTrace);
    // Round-robin to exhaustion: every site's whole breadth-first sequence, whatever the policy.
    const s = await crawlReplay(db, ['--policy', 'round-robin', '--concurrency', '4', '--budget', 'none']);
    const d = openDb(db, { readonly: true });
    const t = readTrace(d);
    d.close();
    const sites = t.sites.map(({ name, group, urls, hosts, pairs, levels, statuses, http }) => ({ name, group, urls, hosts, pairs, levels, statuses, http }));
    const pulls = sites.reduce((a, x) => a + x.urls.length, 0);
    const pages = sites.reduce((a, x) => a + x.statuses.filter((st) => st === 'done').length, 0);
    const json = JSON.stringify({ source: '../shared/replay-web, full crawl (round-robin, max level 5), rewards: urls, hosts, pairs per pull in BFS order', sites });
    writeFileSync(out, gzipSync(json, { level: 9 }));
    console.log(`${sites.length} sites, ${pulls} pulls, ${pages} HTML pages (${(100 * (1 - pages / pulls)).toFixed(1)} % of pulls not a new HTML page), ${s.toFixed(0)} s; wrote ${out}`);
  } else if (mode === 'live') {
    const budget = Number(arg('--budget', '2000'));
    const trace = arg('--trace', committedTrace);
    // breadth-first: a reward trace fixes each site's pages in that order (bench:harvest replays the value order)
    const s = await crawlReplay(db, ['--order', 'bfs', '--concurrency', '1', '--budget', String(budget)]);
    const d = openDb(db, { readonly: true });
    const live = d.prepare('SELECT sum(reward_urls) FROM fetches').pluck().get() as number;
    const distinct = d.prepare('SELECT count(DISTINCT key) FROM external_links').pluck().get() as number;
    d.close();
    const sites = loadTrace(trace, 'urls');
    const sim = compare(sites, budget, [BANDIT_DEFAULT], { seed: defaults.seed, params: { ...DEFAULTS } });
    const predicted = sim.rows[0]!.total;
    console.log(`live crawl (${BANDIT_DEFAULT}, --order bfs, reward urls, --concurrency 1, --budget ${budget}, ${s.toFixed(0)} s): ${live} external URLs new to their site (${distinct} distinct in all)`);
    console.log(`simulate on ${trace}: ${predicted} (${(100 * predicted / sim.oracle).toFixed(1)} % of the oracle's ${sim.oracle})`);
    console.log(`live / predicted = ${(live / predicted).toFixed(4)} (${(100 * (live - predicted) / predicted).toFixed(2)} %)`);
  } else if (mode === 'order') {
    const orders = arg('--orders', 'bfs,best-first,plain,shark-search,otie').split(',');
    const Ns = [500, 1000, 2000, 5000];
    const all = loadTrace(committedTrace, 'urls');
    const sets: [string, string[]][] = [['A', ['A']], ['B', ['B']], ['A+B', ['A', 'B']]];
    console.log(`site-new external URLs as % of the BFS oracle (each order's default scheduler, --concurrency 1; oracle from ${committedTrace})`);
    console.log(['order'.padEnd(12), ...sets.flatMap(([n]) => Ns.map((N) => `${n}/${N}`.padStart(10)))].join(''));
    for (const order of orders) {
      const cells: string[] = [];
      for (const [name, groups] of sets) {
        const seqs = all.filter((x) => groups.includes(x.group ?? '')).map((x) => x.rewards);
        const curve = oracleCurve(seqs, Math.max(...Ns));
        const setDb = join(dir, `${order}-${name}.db`);
        await crawlReplay(setDb, ['--order', order, '--concurrency', '1', '--budget', String(Math.max(...Ns))], groups);
        const d = openDb(setDb, { readonly: true });
        const got = d.prepare('SELECT reward_urls FROM fetches ORDER BY seq').pluck().all() as number[];
        d.close();
        for (const N of Ns) {
          const sum = got.slice(0, N).reduce((a, b) => a + b, 0);
          cells.push(`${(100 * sum / curve[Math.min(N, curve.length - 1)]!).toFixed(1)}`.padStart(10));
        }
      }
      console.log([order.padEnd(12), ...cells].join(''));
    }
  } else if (mode === 'focus') {
    const orders = arg('--orders', 'bfs,best-first,plain,shark-search,otie').split(',');
    const picked = arg('--topics', '0,1,2').split(',').map(Number);
    const Ns = [500, 1000, 2000, 5000];
    const budget = Math.max(...Ns);
    console.log('topic-focused crawls of the 20 replay sites, round-robin over the sites, --concurrency 1, 5,000 pages');
    console.log('relevant = the page text (tags stripped by a regular expression, not by beebot) names the topic 3 times or more;');
    console.log('target recall = relevant pages fetched / relevant pages among those an independent level-5 BFS reaches (measure.py)');
    for (const ti of picked) {
      const [topic, re] = FOCUS_TOPICS[ti]!;
      const known = relevantSet(re);
      const header = ['order'.padEnd(14), ...Ns.map((N) => `harvest/${N}`.padStart(13)), ...Ns.map((N) => `recall/${N}`.padStart(12))].join('');
      console.log(`\n"${topic}": ${known.size} relevant pages reachable`);
      console.log(header);
      for (const order of orders) {
        const setDb = join(dir, `focus-${ti}-${order}.db`);
        await crawlReplay(setDb, ['--order', order, '--focus', topic, '--policy', 'round-robin', '--concurrency', '1', '--budget', String(budget)]);
        const d = openDb(setDb, { readonly: true });
        const urls = d.prepare('SELECT coalesce(f.final_url, p.url) FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq').pluck().all() as string[];
        d.close();
        const seen = new Set<string>();
        let hits = 0;
        const harvest: string[] = [];
        const recall: string[] = [];
        urls.forEach((u, i) => {
          const file = fileOf(u);
          if (file && !seen.has(file) && known.has(file)) hits++;
          if (file) seen.add(file);
          if (Ns.includes(i + 1)) {
            harvest.push(`${((100 * hits) / (i + 1)).toFixed(1)}`.padStart(13));
            recall.push(`${((100 * hits) / known.size).toFixed(1)}`.padStart(12));
          }
        });
        console.log([order.padEnd(14), ...harvest, ...recall].join(''));
      }
    }
  } else {
    throw new Error(`unknown mode ${mode}: trace, live or order`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
