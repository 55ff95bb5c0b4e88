import { Command, Option } from 'commander';
import { compare } from '../bandit/compare.js';
import { DEFAULTS, policyNames, isPolicyName } from '../bandit/registry.js';
import { synthetic, type SyntheticKind } from '../bandit/synthetic.js';
import { UsageError } from '../errors.js';
import { loadTrace } from './trace-file.js';
import { rewardModes, type RewardMode } from '../bandit/reward.js';
import { isTty, printJson } from './context.js';
import { formatTable } from './table.js';

interface SimulateFlags {
  trace?: string;
  synthetic?: SyntheticKind;
  budget: string;
  policies?: string;
  seed: string;
  reward?: RewardMode;
  json?: boolean;
}

export function simulateCommand(): Command {
  return new Command('simulate')
    .description('replay recorded (or synthetic) per-site reward sequences under each policy and the exact oracle')
    .option('--trace <file>', "a trace from 'beebot trace export' (.json or .json.gz) or a beebot database")
    .addOption(new Option('--synthetic <kind>', '10 generated sites shaped like the article\'s sample').choices(['university', 'institute', 'mixed']))
    .requiredOption('--budget <pages>', 'N: pages to allocate')
    .option('--policies <list>', `comma-separated (default: all of ${policyNames.join(', ')})`)
    .addOption(new Option('--reward <mode>', "replay a trace's urls, hosts or pairs rewards (default: the mode its crawl ran with)").choices([...rewardModes]))
    .option('--seed <n>', 'seed for random policies and synthetic sites', '1')
    .option('--json', 'print JSON, with each policy\'s cumulative links and regret after every page')
    .action((flags: SimulateFlags) => {
      const budget = positiveInt('--budget', flags.budget, 1);
      const seed = positiveInt('--seed', flags.seed, 0);
      const policies = flags.policies ? flags.policies.split(',').map((p) => p.trim()) : [...policyNames];
      const unknown = policies.filter((p) => !isPolicyName(p));
      if (unknown.length) throw new UsageError(`unknown policy ${unknown.join(', ')} (known: ${policyNames.join(', ')})`);
      if ((flags.trace === undefined) === (flags.synthetic === undefined)) throw new UsageError('give one of --trace <file> or --synthetic <kind>');
      if (flags.reward !== undefined && flags.trace === undefined) throw new UsageError('--reward replays a trace: give --trace');
      const sites = flags.trace !== undefined ? loadTrace(flags.trace, flags.reward) : synthetic(flags.synthetic!, seed);
      const result = compare(sites, budget, policies, { seed, params: { ...DEFAULTS } });
      if (flags.json) return printJson(result);
      const rows = [...result.rows]
        .sort((a, b) => b.total - a.total)
        .map((r) => [r.policy, r.total, `${r.percent.toFixed(1)}%`, r.regret[r.regret.length - 1] ?? 0]);
      rows.push(['oracle', result.oracle, '100.0%', 0]);
      const pages = sites.reduce((a, s) => a + s.rewards.length, 0);
      process.stdout.write(`${sites.length} sites, ${pages} pages recorded, budget ${budget}, seed ${seed}\n`);
      process.stdout.write(formatTable(['policy', 'external links', 'of oracle', 'regret'], rows, isTty()));
    });
}

function positiveInt(name: string, v: string, min: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`${name} must be an integer >= ${min}, got '${v}'`);
  return Number(v);
}
