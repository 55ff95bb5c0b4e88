// Live equals replay: crawl the replay web as a user would (the order's default policy, --concurrency 1,
// --delay 0, through its proxy) and replay the same crawl on its page graph (src/replay).
//   node dist/scripts/harvest-live.js [--budgets 500,2000] [--orders value,bfs,best-first]
// Prints, per order and budget, the distinct (site, external URL) pairs, external URLs and outside
// hosts of both, their difference, and the first pull where the two crawls part (site or reward).
// Both store a pull's content and take its external and internal links with one code
// (src/schedule/content-intake.ts, external-intake.ts, link-intake.ts); what this holds to each
// other is the rest: the two stores and queues, and the graph against the live pages.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULTS, makePolicy } from '../src/schedule/sites/registry.js';
import { openDb } from '../src/db/db.js';
import { replay } from '../src/replay/replay.js';
import type { Order } from '../src/schedule/links/priority.js';
import { defaultPolicy, defaults } from '../src/store/settings.js';
import { ensureGraph } from './harvest-graph.js';
import { crawlReplay } from './replay-root.js';
import { helpFromHeader } from './script-help.js';

helpFromHeader(import.meta.url);

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : fallback);
const budgets = arg('--budgets', '500,2000').split(',').map(Number);
const orders = arg('--orders', 'value,bfs,best-first').split(',') as Order[];
const web = ensureGraph();
const dir = mkdtempSync(join(tmpdir(), 'beebot-harvest-live-'));
const pct = (a: number, b: number) => `${b === 0 ? '0.00' : ((100 * (a - b)) / b).toFixed(2)} %`;
console.log(['order', 'N', 'live pairs', 'replay pairs', 'diff', 'live URLs', 'replay URLs', 'diff', 'live hosts', 'replay hosts', 'diff', 'first parting pull', 's'].join('\t'));
try {
  for (const order of orders) {
    for (const N of budgets) {
      const db = join(dir, `${order}-${N}.db`);
      const s = await crawlReplay(db, ['--order', order, '--concurrency', '1', '--budget', String(N)]);
      const d = openDb(db, { readonly: true });
      const pulls = d.prepare('SELECT site_id AS site, reward_urls AS urls FROM fetches ORDER BY seq').all() as { site: number; urls: number }[];
      const urls = d.prepare('SELECT count(DISTINCT key) FROM external_links').pluck().get() as number;
      const hosts = d.prepare('SELECT count(DISTINCT host) FROM external_links').pluck().get() as number;
      d.close();
      const live = pulls.reduce((a, p) => a + p.urls, 0);
      const r = replay(web, { policy: makePolicy(defaultPolicy(order), { ...DEFAULTS }), order, budget: N, seed: defaults.seed });
      const k = r.pulls.length - 1;
      const parts = pulls.findIndex((p, i) => !r.pulls[i] || r.pulls[i]!.site !== p.site || r.pulls[i]!.urls !== p.urls);
      console.log([order, N, live, r.pairs[k], pct(r.pairs[k]!, live), urls, r.urls[k], pct(r.urls[k]!, urls), hosts, r.hosts[k], pct(r.hosts[k]!, hosts),
        parts < 0 ? (pulls.length === r.pulls.length ? 'none' : `length ${pulls.length} vs ${r.pulls.length}`) : `#${parts + 1}`, s.toFixed(0)].join('\t'));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
