// `node dist/scripts/bench-policies.js [--trace a.json[,b.json]]... [--seeds 5] [--budgets 500,1000,2000,5000]
//  [--policies a,b] [--param name=value]...`: every policy on the synthetic sets (and on recorded
// traces) against the exact oracle. Prints the median % of oracle per set and budget, the mean
// over everything (how the default policy is chosen), and the article-style table at N = 2000.
// Figures, not assertions. Trace format: { sites: [{ id, name, group, rewards: number[] }] }.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { compare, type TraceSite } from '../src/bandit/compare.js';
import { oracleCurve } from '../src/bandit/oracle.js';
import { isPolicyName, policyNames, type PolicyParams } from '../src/bandit/registry.js';
import { synthetic, type SyntheticKind } from '../src/bandit/synthetic.js';

const ARTICLE: Record<SyntheticKind, [number, number, number]> = {
  institute: [417, 816, 457],
  university: [1337, 774, 1447],
  mixed: [949, 994, 1078],
};

function parseArgs(argv: string[]) {
  const o = { traces: [] as string[], seeds: 5, budgets: [500, 1000, 2000, 5000], policies: [...policyNames] as string[], params: {} as PolicyParams };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${argv[i]} needs a value`);
    const list = () => v.split(',').filter(Boolean);
    switch (argv[i++]) {
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

function readTrace(file: string): TraceSite[] {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { sites?: { name?: unknown; group?: unknown; rewards?: unknown }[] };
  if (!Array.isArray(json.sites)) throw new Error(`${file}: expected { sites: [...] }`);
  return json.sites.map((s, i) => {
    if (!Array.isArray(s.rewards) || !s.rewards.every((r) => typeof r === 'number' && r >= 0)) throw new Error(`${file}: site ${i} has no valid rewards`);
    return { name: String(s.name ?? i), group: typeof s.group === 'string' ? s.group : null, rewards: s.rewards as number[] };
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const pad = (s: string | number, n: number) => String(s).padStart(n);

const o = parseArgs(process.argv.slice(2));
const seeds = Array.from({ length: o.seeds }, (_, i) => i + 1);
// A set = instances to take medians over: a synthetic kind at several seeds, or a trace at
// several seeds (only randomised policies differ between a trace's seeds).
const sets = [
  ...(['institute', 'university', 'mixed'] as const).map((kind) => ({ name: kind, instances: seeds.map((seed) => ({ seed, sites: synthetic(kind, seed) as TraceSite[] })) })),
  ...o.traces.map((file) => { const sites = readTrace(file); return { name: basename(file, '.json'), instances: seeds.map((seed) => ({ seed, sites })) }; }),
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

const cols = sets.flatMap((s) => o.budgets.map((N) => [s.name, N] as const));
const mean = (p: string) => cols.reduce((a, [s, N]) => a + percent.get(key(s, N, p))!, 0) / cols.length;
const ranked = [...o.policies].sort((a, b) => mean(b) - mean(a));
console.log(`% of oracle, median over ${o.seeds} seeds (columns: set / budget N); mean = unweighted mean of all columns\n`);
console.log(['policy'.padEnd(12), ...cols.map(([s, N]) => pad(`${s.slice(0, 5)}/${N}`, 11)), pad('mean', 6)].join(' '));
for (const p of ranked) console.log([p.padEnd(12), ...cols.map(([s, N]) => pad(percent.get(key(s, N, p))!.toFixed(1), 11)), pad(mean(p).toFixed(1), 6)].join(' '));
console.log(['oracle'.padEnd(12), ...cols.map(([s, N]) => pad(Math.round(oracleMedian.get(key(s, N))!), 11))].join(' '));

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
