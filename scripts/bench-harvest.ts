// How much of what is reachable a crawl collects: each method (scheduler + order inside a site)
// replayed on the replay web's page graph (src/harvest; built by harvest-graph.ts when missing)
// for sets A, B and A+B at N = 500, 1,000, 2,000, 5,000, as % of limit.py's bfs-oracle and
// perfect-predictor (distinct (site, external URL) pairs). Methods with constants chosen on data
// are measured leave-sites-out (src/harvest/cross-validate.ts); then the spread over random
// 10-site subsets of all 20 sites (min / median / max % of the perfect-predictor).
//   node dist/scripts/bench-harvest.js [--budgets 500,1000,2000,5000] [--methods default,best-first] [--subsets 10]
//   (--methods also takes value:x=EXPLORE:drop=c+h:policy=pages:prior=cv, see below)
import { DEFAULTS, makePolicy } from '../src/bandit/registry.js';
import { cachedReferences, measure, subsets, type Method } from '../src/harvest/cross-validate.js';
import { percentOf } from '../src/harvest/harvest.js';
import { pageSets, references, type PageSet } from '../src/harvest/references.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './replay-root.js';
import { replay } from '../src/harvest/replay.js';
import { cuePrior } from '../src/harvest/cue-prior.js';
import type { CuePrior } from '../src/order/model.js';
import type { ValueParams } from '../src/order/link-value.js';
import { ensureGraph } from './harvest-graph.js';

/** The methods to measure; a later model adds itself here with its `tune`. */
const METHODS: Method[] = [
  // the previous default (rr-ucb over sites, breadth-first inside each) and best-first under it
  { name: 'rr-ucb+bfs', make: () => ({ policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'bfs' }) },
  { name: 'best-first', make: () => ({ policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'best-first' }) },
  { name: 'rr+best-first', make: () => ({ policy: makePolicy('round-robin', { ...DEFAULTS }), order: 'best-first' }) },
  // --order value under the default scheduler, its one constant (explore) chosen on the training sites at 25 pages a site
  {
    name: 'value (cv)',
    tune: (train) => {
      const n = 25 * train.sites.length;
      const score = (explore: number) => replay(train, { policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'value', value: { explore }, budget: n, seed: 1 }).pairs.at(-1) ?? 0;
      const scores = [0, 0.3, 1, 3].map((x) => [x, score(x)] as const);
      return scores.reduce((best, x) => (x[1] > best[1] ? x : best))[0];
    },
    make: (explore) => ({ policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'value', value: { explore: explore as number } }),
  },
  // --order value with the cue prior learned on the training sites only (leave-sites-out)
  {
    name: 'value+prior (cv)',
    tune: (train) => cuePrior(train),
    make: (prior) => ({ policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'value', value: { explore: 0, prior: prior as CuePrior } }),
  },
  {
    name: 'pages+prior (cv)',
    tune: (train) => cuePrior(train),
    make: (prior) => ({ policy: makePolicy('pages'), order: 'value', value: { explore: 0, prior: prior as CuePrior } }),
  },
  // the untuned methods crawled fold by fold as the tuned ones are (each fold's sites with its share of N): the same references
  { name: 'rr-ucb+bfs (folds)', tune: () => undefined, make: () => ({ policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'bfs' }) },
  { name: 'best-first (folds)', tune: () => undefined, make: () => ({ policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'best-first' }) },
  // The default, cross-validated: pages + value with the cue prior, and which cue kinds to use and
  // the optimism chosen on the training sites (replayed there at 25 pages a site with their own
  // prior): nothing chosen on the measured sites. The shipped default is what this choice makes on
  // all 20 sites (link-value.ts VALUE_DEFAULTS, data/cue-prior.json), so it is never measured here
  // as shipped: that would be measuring on the sites it was tuned on.
  {
    name: 'default (cv)',
    tune: (train) => {
      const prior = cuePrior(train);
      const variants = [[], ['c', 'h'], ['c', 'h', 'u']].flatMap((drop) => [0, 1].map((explore) => ({ explore, drop, prior })));
      const score = (v: (typeof variants)[number]) => replay(train, { policy: makePolicy('pages'), order: 'value', value: v, budget: 25 * train.sites.length, seed: 1 }).pairs.at(-1) ?? 0;
      const scored = variants.map((v) => [v, score(v)] as const);
      return scored.reduce((best, x) => (x[1] > best[1] ? x : best))[0];
    },
    make: (v) => ({ policy: makePolicy('pages'), order: 'value', value: v as ValueParams }),
  },
  { name: 'pages', make: () => ({ policy: makePolicy('pages'), order: 'value' }) },
  { name: 'pages-x0', make: () => ({ policy: makePolicy('pages'), order: 'value', value: { explore: 0 } }) },
  { name: 'pages-x3', make: () => ({ policy: makePolicy('pages'), order: 'value', value: { explore: 3 } }) },
  { name: 'pages+best-first', make: () => ({ policy: makePolicy('pages'), order: 'best-first' }) },
  { name: 'rr-ucb+value', make: () => ({ policy: makePolicy('rr-ucb', { ...DEFAULTS }), order: 'value' }) },
  { name: 'rr+value', make: () => ({ policy: makePolicy('round-robin', { ...DEFAULTS }), order: 'value' }) },
];

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : fallback);
const budgets = arg('--budgets', '500,1000,2000,5000').split(',').map(Number);
// by default the baselines and the model; the others (variants measured for the README's ablation) when named
const wanted = arg('--methods', ['rr-ucb+bfs', 'best-first', 'rr+best-first', 'rr-ucb+bfs (folds)', 'default (cv)'].join(',')).split(',');
const nSubsets = Number(arg('--subsets', '10'));
// value:x=EXPLORE[:drop=u+a+c+h+p][:policy=NAME][:prior=cv]: --order value with these constants, for trying them
// (prior=cv: the cue prior learned on the training sites, leave-sites-out)
for (const w of wanted.filter((x) => x.startsWith('value:'))) {
  const kv = Object.fromEntries(w.split(':').slice(1).map((x) => x.split('=') as [string, string]));
  const make = (prior: unknown) => ({
    policy: makePolicy(kv.policy ?? 'rr-ucb', { ...DEFAULTS }), order: 'value' as const,
    value: { explore: Number(kv.x ?? 0), drop: kv.drop ? kv.drop.split('+') : [], prior: (prior as CuePrior | undefined) ?? null },
  });
  METHODS.push(kv.prior === 'cv' ? { name: w, tune: (train) => cuePrior(train), make } : { name: w, make });
}
const methods = METHODS.filter((m) => wanted.includes(m.name));
if (methods.length !== wanted.length) throw new Error(`unknown method in ${wanted.join(',')} (known: ${METHODS.map((m) => m.name).join(', ')})`);

const t0 = performance.now();
const web = ensureGraph();
const sets = pageSets(web);
const all = web.sites.map((_, i) => i);
const groups: [string, number[]][] = [
  ['A', all.filter((i) => web.sites[i]!.group === 'A')],
  ['B', all.filter((i) => web.sites[i]!.group === 'B')],
  ['A+B', all],
];
const f1 = (x: number) => x.toFixed(1).padStart(6);
console.log(`${web.sites.length} sites, ${web.sites.reduce((a, x) => a + x.pages.length, 0)} pages (${web.source})`);
console.log(`methods: ${methods.map((m) => `${m.name}${m.tune ? ' (cross-validated)' : ''}`).join(', ')}; % of bfs-oracle / % of perfect-predictor`);
const graphRefs = (keep: number[], N: number) => cachedReferences(sets, keep, N);
console.log(['set'.padEnd(4), 'N'.padStart(5), 'bfs-oracle'.padStart(11), 'perfect-pred'.padStart(13), 'limit'.padStart(7), ...methods.map((m) => `${m.name}`.padStart(22))].join(' '));
for (const [name, keep] of groups) {
  for (const N of budgets) {
    const cells = methods.map((m) => measure(m, web, sets, keep, N));
    const r = graphRefs(keep, N);
    console.log([name.padEnd(4), String(N).padStart(5), String(r.bfsOracle).padStart(11), String(r.perfectPredictor).padStart(13), String(r.limit).padStart(7),
      ...cells.map((c) => `${String(c.pairs).padStart(6)} ${f1(percentOf(c.pairs, c.bfsOracle))} ${f1(percentOf(c.pairs, c.perfectPredictor))}`.padStart(22))].join(' '));
  }
}
// limit.py's own page sets through the same reference code: its numbers exactly, when it has run here.
const limitPy = join(root, 'pagesets.json');
if (existsSync(limitPy)) {
  const ps = JSON.parse(readFileSync(limitPy, 'utf8')) as Record<string, { group: string; pages: string[][]; edges: number[][] }>;
  const ids = new Map<string, number>();
  const id = (u: string) => ids.get(u) ?? (ids.set(u, ids.size), ids.size - 1);
  const theirs: PageSet[] = Object.entries(ps).map(([name, x]) => ({ name, group: x.group, pages: x.pages.map((p) => p.map(id)), edges: x.edges }));
  console.log(`\nthe references of limit.py's page sets (${limitPy}), for comparison with its output:`);
  for (const [name, groups] of [['all', ['A', 'B']], ['A', ['A']], ['B', ['B']]] as const) {
    const refs = references(theirs.filter((x) => (groups as readonly string[]).includes(x.group ?? '')), budgets);
    for (const [N, r] of refs) console.log(`${name.padEnd(4)} ${String(N).padStart(5)} ${String(r.bfsOracle).padStart(10)} ${String(r.perfectPredictor).padStart(17)} ${String(r.limit).padStart(7)}`);
  }
}
if (nSubsets > 0) {
  const picks = subsets(all.length, Math.min(10, all.length), nSubsets, 1);
  console.log(`\n${nSubsets} random 10-site subsets of all ${all.length}: % of perfect-predictor, min / median / max`);
  console.log(['N'.padStart(5), ...methods.map((m) => m.name.padStart(22))].join(' '));
  for (const N of budgets) {
    const cells = methods.map((m) => {
      const xs = picks.map((keep) => {
        const c = measure(m, web, sets, keep, N);
        return percentOf(c.pairs, c.perfectPredictor);
      }).sort((a, b) => a - b);
      return `${f1(xs[0]!)} ${f1(xs[Math.floor(xs.length / 2)]!)} ${f1(xs.at(-1)!)}`.padStart(22);
    });
    console.log([String(N).padStart(5), ...cells].join(' '));
  }
}
console.log(`\n${((performance.now() - t0) / 1000).toFixed(0)} s`);
