/**
 * The benchmark's parameters (pure): flags first, then BENCH_* environment variables, then the
 * defaults, which fit a full run into about 11 minutes on the 2-core machine (`--quick`: about 1.5).
 */
import { parseArgs } from 'node:util';

export const PARTS = ['parse', 'ceiling', 'web', 'single', 'scale', 'order'] as const;
export type Part = (typeof PARTS)[number];

export interface BenchOptions {
  quick: boolean;
  /** Repetitions of each comparison (contenders alternate within each). */
  reps: number;
  /** Pages fetched per run on the comparison web. */
  budget: number;
  concurrency: number;
  sites: number;
  pagesPerSite: number;
  /** Pages of the single site that wget and beebot crawl whole. */
  soloPages: number;
  /** Stored links at which the scale run measures, e.g. 10k, 100k, 1M. */
  scale: number[];
  scaleSites: number;
  /** Leaf pages fetched and timed at each scale stage, and how many such windows per stage. */
  scaleWindow: number;
  scaleReps: number;
  parsePages: number;
  parseRounds: number;
  ceilingPages: number;
  parts: Set<Part>;
  /** Also run beebot's crawl under --cpu-prof and summarize where its time goes. */
  profile: boolean;
  /** beebot's --order for its crawls (null: its default), to price an order against another */
  order: string | null;
  /** Pages fetched per run of the order stage (the default order against --order bfs). */
  orderBudget: number;
  out: string | null;
}

export const USAGE = `usage: npm run bench -- [--quick] [--profile] [--reps N] [--budget N] [--concurrency N]
                     [--sites N] [--pages N] [--solo-pages N] [--scale 10000,100000,1000000]
                     [--scale-window N] [--scale-reps N] [--parse-pages N] [--only parse,ceiling,web,single,scale,order] [--order NAME] [--out FILE]
(each also as an environment variable: BENCH_REPS, BENCH_BUDGET, BENCH_CONCURRENCY, ...)`;

export function benchOptions(argv: string[], env: Record<string, string | undefined>, defaultOut: string): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      profile: { type: 'boolean' },
      reps: { type: 'string' },
      budget: { type: 'string' },
      concurrency: { type: 'string' },
      sites: { type: 'string' },
      pages: { type: 'string' },
      'solo-pages': { type: 'string' },
      scale: { type: 'string' },
      'scale-window': { type: 'string' },
      'scale-reps': { type: 'string' },
      'parse-pages': { type: 'string' },
      only: { type: 'string' },
      order: { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
  });
  const quick = values.quick ?? env.BENCH_QUICK === '1';
  const pick = (flag: string | undefined, name: string, full: number, fast: number, min = 1): number => {
    const raw = flag ?? env[`BENCH_${name}`];
    const n = raw === undefined ? (quick ? fast : full) : Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name.toLowerCase().replace(/_/g, '-')} must be an integer >= ${min}, got '${raw}'`);
    return n;
  };
  const list = (raw: string | undefined, full: number[], fast: number[]) => {
    if (raw === undefined) return quick ? fast : full;
    if (raw === '' || raw === 'none') return [];
    return raw.split(',').map((x) => {
      const n = Number(x.trim().replace(/k$/i, '000').replace(/m$/i, '000000'));
      if (!Number.isInteger(n) || n < 1) throw new Error(`--scale takes stored-link counts like 10000,100000,1000000; got '${x}'`);
      return n;
    });
  };
  const onlyRaw = values.only ?? env.BENCH_ONLY;
  const parts = new Set<Part>(onlyRaw ? (onlyRaw.split(',').map((x) => x.trim()) as Part[]) : PARTS);
  for (const p of parts) if (!PARTS.includes(p)) throw new Error(`--only takes ${PARTS.join(',')}; got '${p}'`);
  const out = values.out ?? env.BENCH_OUT ?? defaultOut;
  return {
    quick,
    reps: pick(values.reps, 'REPS', 3, 1),
    budget: pick(values.budget, 'BUDGET', 4000, 600),
    concurrency: pick(values.concurrency, 'CONCURRENCY', 8, 8),
    sites: pick(values.sites, 'SITES', 20, 20, 2),
    pagesPerSite: pick(values.pages, 'PAGES', 5000, 5000, 2),
    soloPages: pick(values['solo-pages'], 'SOLO_PAGES', 2000, 300, 2),
    scale: list(values.scale ?? env.BENCH_SCALE, [10_000, 100_000, 1_000_000], [10_000, 100_000]).sort((a, b) => a - b),
    scaleSites: pick(undefined, 'SCALE_SITES', 10, 10),
    scaleWindow: pick(values['scale-window'], 'SCALE_WINDOW', 1000, 200),
    // Identical windows (same store, same pages) still spread by ±20 % here: more of them than reps.
    scaleReps: pick(values['scale-reps'], 'SCALE_REPS', 5, 1),
    parsePages: pick(values['parse-pages'], 'PARSE_PAGES', 1000, 200),
    parseRounds: pick(undefined, 'PARSE_ROUNDS', 5, 3),
    ceilingPages: pick(undefined, 'CEILING_PAGES', 4000, 1000),
    parts,
    profile: values.profile ?? env.BENCH_PROFILE === '1',
    order: values.order ?? env.BENCH_ORDER ?? null,
    orderBudget: pick(undefined, 'ORDER_BUDGET', 1500, 600),
    out: out === '' || out === 'none' ? null : out,
  };
}
