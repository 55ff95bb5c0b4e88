// How much of what is reachable a crawl collects, judged under shift: each method (scheduler +
// order inside a site) replayed on page graphs of the replay web (src/replay; built by
// harvest-graph.ts when missing), as % of limit.py's perfect-predictor (distinct (site, external
// URL) pairs), at N = 500, 1,000, 2,000, 5,000, in four scenarios:
//   published  sets A, B and A+B seeded as the replay web publishes them (every start page links out);
//   shifted    the same sites seeded at a level 1-2 page without external links (replay/shifted-starts.ts);
//   barren     set C (catalog-c.tsv: 24 small sites, some almost barren) mixed into A, B and A+B;
//   late       the sites of A+B and C that bloom late (seeded where the pages read next are quiet and a
//              hub comes a few pages later, replay/late-bloomers.ts) beside set C's other sites;
//   subsets    random subsets of 5 and 10 sites of A+B, published and shifted.
// Methods with constants chosen on data are measured leave-sites-out (replay/cross-validate.ts).
// A method's result is the scenario worst (its worst cell outside the subsets) and the subset mean
// (its mean over the subsets' cells, with their spread; the worst subset is printed, not judged).
// Then where the first method's budget went, site by site, in its scenario worst and in the late row's,
// beside the perfect-predictor's split; and, per scenario, its order inside each site against
// breadth-first at the pages it gave each site.
//   node dist/scripts/bench-harvest.js --help  (the options)
//   (--methods also takes value:x=EXPLORE:drop=c+h:policy=pages:prior=cv, see below)
import { parseArgs } from 'node:util';
import { DEFAULTS, makePolicy } from '../src/schedule/sites/registry.js';
import { measure, ownOrderOracle, subsets, type Measured, type Method, type SiteSplit } from '../src/replay/cross-validate.js';
import { percentOf } from '../src/replay/harvest.js';
import { pageSets } from '../src/replay/references.js';
import { replay } from '../src/replay/replay.js';
import { cuePrior } from '../src/replay/cue-prior.js';
import { mergeGraphs, type WebGraph } from '../src/replay/web-graph.js';
import { shiftedStarts } from '../src/replay/shifted-starts.js';
import { lateBloomers } from '../src/replay/late-bloomers.js';
import type { CuePrior } from '../src/schedule/links/model.js';
import { VALUE_DEFAULTS, type ValueParams } from '../src/schedule/links/link-value.js';
import { ensureGraph, ensureGraphC } from './harvest-graph.js';

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
  // the article's bandits over sites with --order value inside them, its cue prior learned on the training sites only
  ...(['rr-ucb', 'ucb1', 'round-robin'] as const).map((policy): Method => ({
    name: `${policy}+value (cv)`,
    tune: (train) => cuePrior(train),
    make: (prior) => ({ policy: makePolicy(policy, { ...DEFAULTS }), order: 'value', value: { ...VALUE_DEFAULTS, prior: prior as CuePrior } }),
  })),
  { name: 'rr+value', make: () => ({ policy: makePolicy('round-robin', { ...DEFAULTS }), order: 'value' }) },
];

const DEFAULT_METHODS = ['default (cv)', 'rr-ucb+value (cv)', 'ucb1+value (cv)', 'round-robin+value (cv)', 'rr-ucb+bfs'];
const USAGE = `usage: node dist/scripts/bench-harvest.js [--budgets 500,1000,2000,5000] [--methods a,b]
         [--scenarios published,shifted,barren,late,subsets] [--subsets 8] [--split 'SCENARIO SET N=BUDGET']
  --methods    methods to replay, the first one's budget split is printed (default: ${DEFAULT_METHODS.join(',')})
  --subsets    random subsets of 5 and of 10 sites in the subsets scenario (each)
  --split      the cell whose budget split is printed, e.g. 'shifted A+B N=2000' (default: the first method's scenario worst)
(npm run bench:harvest builds first; page graphs are built on the first run, a few minutes)`;
let opts: Record<string, string | boolean | undefined>;
try {
  opts = parseArgs({
    options: { budgets: { type: 'string' }, methods: { type: 'string' }, scenarios: { type: 'string' }, subsets: { type: 'string' }, split: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  }).values;
} catch (e) {
  console.error(`bench-harvest: ${(e as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
const arg = (name: string, fallback: string) => (opts[name] as string | undefined) ?? fallback;
const budgets = arg('budgets', '500,1000,2000,5000').split(',').map(Number);
// the default, the baselines it must beat, and the previous default; the others (variants measured for the README's ablation) when named
const wanted = arg('methods', DEFAULT_METHODS.join(',')).split(',');
const scenarioNames = arg('scenarios', 'published,shifted,barren,late,subsets').split(',');
const nSubsets = Number(arg('subsets', '8'));
// the cell whose split is printed (e.g. 'shifted A+B N=2000'): by default the default's worst
const splitOf = arg('split', '');
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
// in the order asked: the first is the one whose budget split is printed
const methods = wanted.flatMap((w) => METHODS.filter((m) => m.name === w));
if (methods.length !== wanted.length) {
  console.error(`bench-harvest: unknown method in ${wanted.join(',')} (known: ${METHODS.map((m) => m.name).join(', ')})`);
  process.exit(2);
}

/** A set of sites of one web: a row of the tables. */
interface Cell {
  scenario: string;
  set: string;
  web: WebGraph;
  sets: ReturnType<typeof pageSets>;
  keep: number[];
  /** leave-sites-out folds: 5 for a whole set; 1 for a subset (the crawl is the subset, trained on the graph's other sites) */
  folds: number;
}

const t0 = performance.now();
const ab = ensureGraph();
const groupsOf = (web: WebGraph, extra: number[] = []): [string, number[]][] => {
  const all = web.sites.map((_, i) => i);
  const suffix = extra.length ? '+C' : '';
  return [
    [`A${suffix}`, [...all.filter((i) => web.sites[i]!.group === 'A'), ...extra]],
    [`B${suffix}`, [...all.filter((i) => web.sites[i]!.group === 'B'), ...extra]],
    [`A+B${suffix}`, all],
  ];
};
const cells: Cell[] = [];
const add = (scenario: string, web: WebGraph, rows: [string, number[]][], folds = 5) => {
  const sets = pageSets(web);
  for (const [set, keep] of rows) cells.push({ scenario, set, web, sets, keep, folds });
};
const shifted = scenarioNames.includes('shifted') || scenarioNames.includes('subsets') ? shiftedStarts(ab) : ab;
if (scenarioNames.includes('published')) add('published', ab, groupsOf(ab));
if (scenarioNames.includes('shifted')) add('shifted', shifted, groupsOf(shifted));
if (scenarioNames.includes('barren')) {
  const mixed = mergeGraphs(ab, ensureGraphC());
  const c = mixed.sites.map((_, i) => i).filter((i) => i >= ab.sites.length);
  add('barren', mixed, groupsOf(mixed, c));
}
if (scenarioNames.includes('late')) {
  // the sites of A+B and C that bloom late beside set C's others, small and some almost barren: a quiet start is not a barren site
  const { web: mixed, late } = lateBloomers(mergeGraphs(ab, ensureGraphC()));
  const keep = mixed.sites.map((_, i) => i).filter((i) => i >= ab.sites.length || late.includes(i));
  console.log(`late bloomers: ${late.map((i) => mixed.sites[i]!.host).join(', ')}`);
  add('late', mixed, [['late+C', keep]]);
}
if (scenarioNames.includes('subsets')) {
  for (const [name, web] of [['published', ab], ['shifted', shifted]] as const) {
    const rows: [string, number[]][] = [5, 10].flatMap((size) => subsets(web.sites.length, size, nSubsets, size).map((keep, j): [string, number[]] => [`${size}-sites #${j + 1}`, keep]));
    add(`subsets, ${name}`, web, rows, 1);
  }
}

const f1 = (x: number) => x.toFixed(1).padStart(6);
console.log(`${ab.sites.length} sites, ${ab.sites.reduce((a, x) => a + x.pages.length, 0)} pages (${ab.source})`);
console.log(`methods: ${methods.map((m) => `${m.name}${m.tune ? ' (cross-validated)' : ''}`).join(', ')}; % of perfect-predictor`);
/** Every cell's figure, by method: the yardstick is read off them. */
interface Result { cell: Cell; where: string; N: number; pct: number; got: Measured }
const results = new Map<string, Result[]>(methods.map((m) => [m.name, []]));
const width = Math.max(...methods.map((m) => m.name.length), 8) + 1;
let scenario = '';
for (const c of cells) {
  if (c.scenario !== scenario) {
    scenario = c.scenario;
    console.log(`\n${scenario}`);
    console.log(['set'.padEnd(16), 'N'.padStart(5), 'perfect-pred'.padStart(13), ...methods.map((m) => m.name.padStart(width))].join(' '));
  }
  for (const N of budgets) {
    // the first method's order inside each site is replayed against breadth-first at the pages it gave each site
    const got = methods.map((m, k) => measure(m, c.web, c.sets, c.keep, N, { k: c.folds, orders: k === 0 }));
    const pp = got[0]!.perfectPredictor;
    console.log([c.set.padEnd(16), String(N).padStart(5), String(pp).padStart(13), ...got.map((g) => f1(percentOf(g.pairs, g.perfectPredictor)).padStart(width))].join(' '));
    got.forEach((g, k) => results.get(methods[k]!.name)!.push({ cell: c, where: `${c.scenario} ${c.set} N=${N}`, N, pct: percentOf(g.pairs, g.perfectPredictor), got: g }));
  }
}
const isSubset = (r: Result) => r.cell.scenario.startsWith('subsets');
const lowest = (rs: Result[]) => rs.reduce<Result | null>((w, r) => (w === null || r.pct < w.pct ? r : w), null);
console.log(`\nthe yardstick (% of perfect-predictor): the scenario worst (the worst cell outside the subsets), the subset mean over the subsets' cells (min-max), the worst subset (printed, not judged)`);
for (const m of methods) {
  const rs = results.get(m.name)!;
  const w = lowest(rs.filter((r) => !isSubset(r)));
  const sub = rs.filter(isSubset);
  const ws = lowest(sub);
  const mean = sub.reduce((a, r) => a + r.pct, 0) / (sub.length || 1);
  const spread = sub.length ? `${f1(Math.min(...sub.map((r) => r.pct))).trim()}-${f1(Math.max(...sub.map((r) => r.pct))).trim()}` : '';
  console.log(`${m.name.padEnd(width)} scenario worst ${w ? `${f1(w.pct)}  ${w.where}` : '     -'};  subset mean ${sub.length ? `${f1(mean)} (${spread}, ${sub.length} cells)` : '     -'};  worst subset ${ws ? `${f1(ws.pct).trim()} ${ws.where}` : '-'}`);
}

/**
 * Where the first method's budget went in a cell, site by site, beside the perfect-predictor's
 * split and the best split over the method's own order inside each site (each site replayed
 * alone): the most a scheduler over sites could reach, knowing where each site pays.
 */
function printSplit(r: Result): void {
  const own = ownOrderOracle(methods[0]!, r.cell.web, r.cell.keep, r.N, { k: r.cell.folds });
  console.log(`\nwhere the budget went: ${methods[0]!.name}, ${r.where} (pulls and (site, external URL) pairs; the perfect-predictor's split beside,`);
  console.log(`and the best split over the method's own order inside each site, each site replayed alone: the most a scheduler over sites could reach, knowing where each site pays)`);
  console.log(['site'.padEnd(34), 'group'.padEnd(5), 'pulls'.padStart(6), 'pairs'.padStart(7), 'pp pages'.padStart(9), 'pp pairs'.padStart(9), 'best split'.padStart(11)].join(' '));
  for (const [i, x] of [...r.got.sites].sort((a, b) => a[0] - b[0])) {
    const site = r.cell.web.sites[i]!;
    console.log([site.host.slice(0, 34).padEnd(34), String(site.group ?? '').padEnd(5), String(x.pulls).padStart(6), String(x.pairs).padStart(7), String(x.ppPages).padStart(9), String(x.ppPairs).padStart(9), String(own.pages.get(i) ?? 0).padStart(11)].join(' '));
  }
  const pct = (n: number) => percentOf(n, r.got.perfectPredictor).toFixed(1);
  console.log(`${methods[0]!.name}: ${pct(r.got.pairs)} % of the perfect-predictor; the best split over its own order: ${pct(own.pairs)} %`);
}
const first = results.get(methods[0]!.name)!;
// the judged cell: the scenario worst (the worst subset when only subsets were measured)
const shownSplit = splitOf ? first.find((r) => r.where === splitOf) : (lowest(first.filter((r) => !isSubset(r))) ?? lowest(first));
if (shownSplit) printSplit(shownSplit);
const lateWorst = lowest(first.filter((r) => r.cell.scenario === 'late'));
if (lateWorst && lateWorst !== shownSplit) printSplit(lateWorst);

// The order inside each site against breadth-first at equal pages: each site given the pulls the
// first method gave it, its pairs in the crawl, replayed alone in the method's own order, and
// breadth-first alone. Where breadth-first gives more, the order is the reason a cell falls short.
console.log(`\nthe order inside each site against breadth-first, at the pages ${methods[0]!.name} gave each site (% of perfect-predictor, mean over the scenario's cells;`);
console.log(`in the crawl / its own order, each site alone / breadth-first, each site alone; cells where breadth-first gives more than the crawl, and the furthest)`);
console.log(['scenario'.padEnd(20), 'cells'.padStart(5), 'crawl'.padStart(7), 'alone'.padStart(7), 'bfs'.padStart(7), 'bfs more'.padStart(9), '  furthest under breadth-first'].join(' '));
for (const name of [...new Set(first.map((r) => r.cell.scenario))]) {
  const rs = first.filter((r) => r.cell.scenario === name).map((r) => {
    const sum = (f: (x: SiteSplit) => number) => [...r.got.sites.values()].reduce((a, x) => a + f(x), 0);
    const pct = (n: number) => percentOf(n, r.got.perfectPredictor);
    return { r, crawl: pct(r.got.pairs), alone: pct(sum((x) => x.alone ?? 0)), bfs: pct(sum((x) => x.bfs ?? 0)) };
  });
  const mean = (f: (x: (typeof rs)[number]) => number) => rs.reduce((a, x) => a + f(x), 0) / rs.length;
  const under = rs.filter((x) => x.bfs > x.crawl);
  const far = under.reduce<(typeof rs)[number] | null>((w, x) => (w === null || x.bfs - x.crawl > w.bfs - w.crawl ? x : w), null);
  console.log([name.padEnd(20), String(rs.length).padStart(5), f1(mean((x) => x.crawl)).padStart(7), f1(mean((x) => x.alone)).padStart(7), f1(mean((x) => x.bfs)).padStart(7), String(under.length).padStart(9),
    far ? `  ${far.r.cell.set} N=${far.r.N}: ${far.crawl.toFixed(1)} / ${far.alone.toFixed(1)} / ${far.bfs.toFixed(1)}` : '  -'].join(' '));
}
console.log(`\n${((performance.now() - t0) / 1000).toFixed(0)} s`);
