import { Command, Option } from 'commander';
import { compare } from '../schedule/sites/compare.js';
import { DEFAULTS, policyNames, isPolicyName, makePolicy, type PolicyName } from '../schedule/sites/registry.js';
import { graphReferences, harvest, percentOf } from '../replay/harvest.js';
import { loadGraph, subGraph, type WebGraph } from '../replay/web-graph.js';
import { ORDERS, type Order } from '../schedule/links/priority.js';
import { synthetic, type SyntheticKind } from '../schedule/sites/synthetic.js';
import { UsageError } from '../errors.js';
import { loadTrace } from './trace-file.js';
import { rewardModes, type RewardMode } from '../schedule/sites/reward.js';
import { defaults } from '../store/settings.js';
import { isTty, printJson } from './context.js';
import { formatTable } from './table.js';
import { counted } from '../markup/counted.js';

interface SimulateFlags {
  trace?: string;
  graph?: string;
  order?: Order;
  group?: string;
  synthetic?: SyntheticKind;
  budget: string;
  policies?: string;
  seed: string;
  reward?: RewardMode;
  json?: boolean;
}

export function simulateCommand(): Command {
  return new Command('simulate')
    .description('replay what each page of a recorded (or synthetic) crawl earned under each scheduling policy, against the best order possible (the oracle)')
    .option('--trace <file>', "a trace from 'beebot trace export' (.json or .json.gz) or a beebot database")
    .option('--graph <file>', 'a page graph (every page of whole sites and their links, recorded from a crawl): replay whole crawls under each policy and --order, ' +
      'against three references: each site breadth-first with the best split of the budget over sites (bfs-oracle), ' +
      'a crawler that knows each page\'s yield (perfect-predictor), and the best pages regardless of links (limit)')
    .addOption(new Option('--order <order>', 'with --graph: the order (as a crawl\'s --order)').choices([...ORDERS]).default(defaults.order))
    .option('--group <group>', 'with --graph: only the sites of this group')
    .addOption(new Option('--synthetic <kind>', '10 generated sites shaped like the article\'s sample').choices(['university', 'institute', 'mixed']))
    .requiredOption('--budget <pages>', 'N: pages to allocate')
    .option('--policies <list>', `comma-separated (default: all of ${policyNames.join(', ')})`)
    .addOption(new Option('--reward <mode>', "what a page earns in the replay: urls (external URLs new to the site), hosts (outside hosts new to the site) or pairs (new (page, external URL) pairs); default: what its crawl counted").choices([...rewardModes]))
    .option('--seed <n>', 'seed for random policies and synthetic sites', '1')
    .option('--json', 'print JSON, with each policy\'s cumulative links and regret after every page')
    .action((flags: SimulateFlags) => {
      const budget = positiveInt('--budget', flags.budget, 1);
      const seed = positiveInt('--seed', flags.seed, 0);
      const policies = flags.policies ? flags.policies.split(',').map((p) => p.trim()) : [...policyNames];
      const unknown = policies.filter((p) => !isPolicyName(p));
      if (unknown.length) throw new UsageError(`unknown policy ${unknown.join(', ')} (known: ${policyNames.join(', ')})`);
      if ([flags.trace, flags.synthetic, flags.graph].filter((x) => x !== undefined).length !== 1) throw new UsageError('give one of --trace <file>, --synthetic <kind> or --graph <file>');
      if (flags.graph !== undefined) return simulateGraph(flags.graph, flags, budget, seed, policies);
      if (flags.reward !== undefined && flags.trace === undefined) throw new UsageError('--reward replays a trace: give --trace');
      const sites = flags.trace !== undefined ? loadTrace(flags.trace, flags.reward) : synthetic(flags.synthetic!, seed);
      const result = compare(sites, budget, policies, { seed, params: { ...DEFAULTS } });
      const pages = sites.reduce((a, s) => a + s.rewards.length, 0);
      const what = flags.trace !== undefined ? 'the trace' : 'the synthetic sites';
      if (budget >= pages) process.stderr.write(wholeReplayLine(what, pages, budget, 'every policy reaches 100% of the oracle') + '\n');
      if (flags.json) return printJson(result);
      const rows = [...result.rows]
        .sort((a, b) => b.total - a.total)
        .map((r) => [r.policy, r.total, `${r.percent.toFixed(1)}%`, r.regret[r.regret.length - 1] ?? 0]);
      rows.push(['oracle', result.oracle, '100.0%', 0]);
      process.stdout.write(`${sites.length} sites, ${pages} pages recorded, budget ${budget}, seed ${seed}\n`);
      process.stdout.write(formatTable(['policy', 'external links', 'of oracle', 'regret'], rows, isTty()));
    });
}

/** Replay each policy with the order on a page graph: its figures as % of the three references (replay/references.ts). */
function simulateGraph(file: string, flags: SimulateFlags, budget: number, seed: number, policies: string[]): void {
  let web: WebGraph;
  try {
    web = loadGraph(file);
  } catch (err) {
    throw new UsageError(`cannot read the page graph ${file}: ${(err as Error).message}`);
  }
  if (flags.group !== undefined) web = subGraph(web, (x) => x.group === flags.group);
  if (web.sites.length === 0) throw new UsageError(`no site of group '${flags.group}' in ${file}`);
  const pages = web.sites.reduce((a, x) => a + x.pages.length, 0);
  if (budget >= pages) process.stderr.write(wholeReplayLine('the page graph', pages, budget, 'every policy fetches every page it can reach and finds the same links') + '\n');
  const refs = graphReferences(web, [budget]).get(budget)!;
  const order = flags.order ?? defaults.order;
  const rows = policies.map((name) => ({ policy: name, ...harvest(web, makePolicy(name as PolicyName, { ...DEFAULTS }), order, budget, refs, seed) }));
  if (flags.json) return printJson({ budget, order, references: refs, rows });
  process.stdout.write(`${web.sites.length} sites, ${pages} pages, budget ${budget}, order ${order}, seed ${seed}\n`);
  process.stdout.write(`references: bfs-oracle ${refs.bfsOracle}, perfect-predictor ${refs.perfectPredictor}, limit ${refs.limit} (site, external URL) pairs\n`);
  const pc = (x: number, r: number) => `${percentOf(x, r).toFixed(1)}%`;
  const table = [...rows]
    .sort((a, b) => b.pairs - a.pairs)
    .map((r) => [r.policy, r.pairs, pc(r.pairs, refs.bfsOracle), pc(r.pairs, refs.perfectPredictor), pc(r.pairs, refs.limit), r.urls, r.hosts]);
  process.stdout.write(formatTable(['policy', '(site, URL) pairs', 'of bfs-oracle', 'of perfect-predictor', 'of limit', 'external URLs', 'hosts'], table, isTty()));
}

/** A budget of every page recorded leaves the policies nothing to choose: the replay's figures all tie, and would say nothing. */
export function wholeReplayLine(what: string, pages: number, budget: number, outcome: string): string {
  return `${what} holds ${counted(pages, 'page')}: a budget of ${budget} replays all of them, so ${outcome}; use --budget below ${pages} to compare the policies`;
}

function positiveInt(name: string, v: string, min: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`${name} must be an integer >= ${min}, got '${v}'`);
  return Number(v);
}
