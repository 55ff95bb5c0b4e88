// `node dist/scripts/bench-policies.js [--real file.json.gz] [--trace a.json[,b.json]]... [--seeds 5]
//  [--budgets 500,1000,2000,5000] [--policies a,b] [--param name=value]...`: every policy against
// the exact oracle, first on real websites (the committed replay-web trace: groups A, B and A+B,
// under each reward mode urls, hosts, pairs), then on the synthetic sets (and other traces).
// Prints the median % of oracle per set and budget, each policy's worst gap to the best policy of
// a cell (how the default is chosen: real sets first), and the article-style table at N = 2000.
// Figures, not assertions.
import { basename } from 'node:path';
import { compare, type TraceSite } from '../src/schedule/sites/compare.js';
import { oracleCurve } from '../src/schedule/sites/oracle.js';
import { isPolicyName, policyNames, type PolicyParams } from '../src/schedule/sites/registry.js';
import { synthetic, type SyntheticKind } from '../src/schedule/sites/synthetic.js';
import { rewardModes } from '../src/schedule/sites/reward.js';
import { loadTrace } from '../src/cli/trace-file.js';
import { BANDIT_DEFAULT } from '../src/store/settings.js';
import { fileURLToPath } from 'node:url';
import { helpFromHeader, optionsOrExit } from './script-help.js';

helpFromHeader(import.meta.url);

/** The committed trace of ../shared/replay-web (`npm run replay-web -- trace` writes it). */
const committedTrace = fileURLToPath(new URL('../../bench/traces/replay-web.json.gz', import.meta.url));

const ARTICLE: Record<SyntheticKind, [number, number, number]> = {
  institute: [417, 816, 457],
  university: [1337, 774, 1447],
  mixed: [949, 994, 1078],
};

function parseArgs(argv: string[]) {
  const o = { real: committedTrace as string | null, traces: [] as string[], seeds: 5, budgets: [500, 1000, 2000, 5000], policies: [...policyNames] as string[], params: {} as PolicyParams };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${argv[i]} needs a value`);
    const list = () => v.split(',').filter(Boolean);
    switch (argv[i++]) {
      case '--real': o.real = v === 'none' ? null : v; break;
      case '--trace': o.traces.push(...list()); break;
      case '--seeds': o.seeds = Number(v); break;
      case '--budgets': o.budgets = list().map(Number); break;
      case '--policies': o.policies = list(); break;
      case '--param': { const [k, x] = v.split('='); (o.params as Record<string, number>)[k!] = Number(x); break; }
      default: throw new Error(`unknown option ${argv[i - 1]}`);
    }
  }
  const bad = o.policies.filter((p) => !isPolicyName(p));
  if (bad.length) throw new Error(`unknown policies: ${bad.join(', ')}`);
  if (!(o.seeds >= 1) || o.budgets.some((n) => !(n >= 1))) throw new Error('--seeds and --budgets must be positive');
  return o;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const pad = (s: string | number, n: number) => String(s).padStart(n);

const o = optionsOrExit(() => parseArgs(process.argv.slice(2)));
const seeds = Array.from({ length: o.seeds }, (_, i) => i + 1);
// A set = instances to take medians over: a synthetic kind at several seeds, or a trace at
// several seeds (only randomised policies differ between a trace's seeds).
const fixed = (name: string, sites: TraceSite[], real = true) => ({ name, real, instances: seeds.map((seed) => ({ seed, sites })) });
const realSets = o.real === null ? [] : rewardModes.flatMap((mode) => {
  const all = loadTrace(o.real!, mode);
  return [fixed(`A ${mode}`, all.filter((x) => x.group === 'A')), fixed(`B ${mode}`, all.filter((x) => x.group === 'B')), fixed(`A+B ${mode}`, all)];
});
const sets = [
  ...realSets,
  ...(['institute', 'university', 'mixed'] as const).map((kind) => ({ name: kind, real: false, instances: seeds.map((seed) => ({ seed, sites: synthetic(kind, seed) as TraceSite[] })) })),
  ...o.traces.map((file) => fixed(basename(file).replace(/\.json(\.gz)?$/, ''), loadTrace(file), false)),
];

const t0 = performance.now();
const maxN = Math.max(...o.budgets);
// percent[set][N][policy] and total[...] as medians over the set's instances
const percent = new Map<string, number>();
const total = new Map<string, number>();
const oracleMedian = new Map<string, number>();
const key = (...k: (string | number)[]) => k.join('|');
for (const set of sets) {
  const runs = set.instances.map((inst) => ({ ...inst, curve: oracleCurve(inst.sites.map((s) => s.rewards), maxN) }));
  for (const N of o.budgets) {
    const results = runs.map((r) => compare(r.sites, N, o.policies, { seed: r.seed, params: o.params, curve: r.curve }));
    oracleMedian.set(key(set.name, N), median(results.map((r) => r.oracle)));
    o.policies.forEach((p, i) => {
      percent.set(key(set.name, N, p), median(results.map((r) => r.rows[i]!.percent)));
      total.set(key(set.name, N, p), median(results.map((r) => r.rows[i]!.total)));
    });
  }
}

/** One table: a row per policy, a column per (set, N); and each policy's worst gap to the cell's best. */
function table(title: string, names: string[]): void {
  const cols = names.flatMap((s) => o.budgets.map((N) => [s, N] as const));
  const best = (s: string, N: number) => Math.max(...o.policies.map((p) => percent.get(key(s, N, p))!));
  const gap = (p: string) => Math.max(...cols.map(([s, N]) => best(s, N) - percent.get(key(s, N, p))!));
  const mean = (p: string) => cols.reduce((a, [s, N]) => a + percent.get(key(s, N, p))!, 0) / cols.length;
  const ranked = [...o.policies].sort((a, b) => gap(a) - gap(b) || mean(b) - mean(a));
  const w = Math.max(9, ...names.map((n) => n.length + 6));
  console.log(`\n${title}: % of oracle, median over ${o.seeds} seeds; worst = largest gap to the cell's best policy, in points\n`);
  console.log(['policy'.padEnd(12), ...cols.map(([s, N]) => pad(`${s}/${N}`, w)), pad('mean', 6), pad('worst', 6)].join(' '));
  for (const p of ranked) {
    const mark = p === BANDIT_DEFAULT ? ' (default of a breadth-first crawl)' : '';
    console.log([p.padEnd(12), ...cols.map(([s, N]) => pad(percent.get(key(s, N, p))!.toFixed(1), w)), pad(mean(p).toFixed(1), 6), pad(gap(p).toFixed(1), 6)].join(' ') + mark);
  }
  console.log(['oracle'.padEnd(12), ...cols.map(([s, N]) => pad(Math.round(oracleMedian.get(key(s, N))!), w))].join(' '));
  const d = BANDIT_DEFAULT;
  if (o.policies.includes(d)) {
    const [ws, wN] = cols.reduce((m, c) => (best(c[0], c[1]) - percent.get(key(c[0], c[1], d))! > best(m[0], m[1]) - percent.get(key(m[0], m[1], d))! ? c : m));
    console.log(`default ${d}: worst cell ${ws}/${wN}, ${percent.get(key(ws, wN, d))!.toFixed(1)} % vs best ${best(ws, wN).toFixed(1)} %`);
  }
}

for (const mode of o.real === null ? [] : rewardModes) table(`Real websites (replay-web), reward ${mode}`, sets.filter((s) => s.real && s.name.endsWith(` ${mode}`)).map((s) => s.name));
table('Synthetic sets (the article\'s shapes)', sets.filter((s) => !s.real).map((s) => s.name));
table('Everything', sets.map((s) => s.name).filter((n) => !/ (hosts|pairs)$/.test(n)));

if (o.budgets.includes(2000) && ['trivial', 'gittins', 'ucb1'].every((p) => o.policies.includes(p))) {
  console.log(`\nArticle-style table, N = 2000, median links over ${o.seeds} seeds (article's Nov 2011 figures in brackets)\n`);
  console.log(['set'.padEnd(12), pad('R1', 12), pad('R2', 12), pad('R3', 12), pad('oracle', 8), '  order'].join(' '));
  for (const set of sets) {
    const [r1, r2, r3] = ['trivial', 'gittins', 'ucb1'].map((p) => total.get(key(set.name, 2000, p))!);
    const a = ARTICLE[set.name as SyntheticKind];
    const cell = (x: number, i: number) => pad(a ? `${Math.round(x)} [${a[i]}]` : `${Math.round(x)}`, 12);
    const order = Object.entries({ R1: r1!, R2: r2!, R3: r3! }).sort((x, y) => y[1] - x[1]).map(([k]) => k).join(' > ');
    const want = a ? Object.entries({ R1: a[0], R2: a[1], R3: a[2] }).sort((x, y) => y[1] - x[1]).map(([k]) => k).join(' > ') : '';
    console.log([set.name.padEnd(12), cell(r1!, 0), cell(r2!, 1), cell(r3!, 2), pad(Math.round(oracleMedian.get(key(set.name, 2000))!), 8), `  ${order}${want ? (order === want ? '  (as the article)' : `  (article: ${want})`) : ''}`].join(' '));
  }
}
console.log(`\n${((performance.now() - t0) / 1000).toFixed(1)} s`);
