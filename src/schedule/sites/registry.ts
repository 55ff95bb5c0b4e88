import { auto } from './auto.js';
import { gittins } from './gittins.js';
import { klUcb } from './kl-ucb.js';
import type { Policy } from './policy.js';
import { pages } from './pages.js';
import { roundRobin } from './round-robin.js';
import { slidingWindowUcb } from './sw-ucb.js';
import { roundRobinUcb } from './rr-ucb.js';
import { thompson } from './thompson.js';
import { trivial } from './trivial.js';
import { ucb1Tuned } from './ucb1-tuned.js';
import { ucb1 } from './ucb1.js';

export const policyNames = ['trivial', 'gittins', 'ucb1', 'round-robin', 'auto', 'kl-ucb', 'thompson', 'ucb1-tuned', 'sw-ucb', 'rr-ucb', 'pages'] as const;
export type PolicyName = (typeof policyNames)[number];

export interface PolicyParams {
  /** round-robin / auto: pages per site per turn (q). */
  quantum?: number;
  /** gittins / auto: batch size n. */
  step?: number;
  /** ucb1, kl-ucb, ucb1-tuned, sw-ucb / auto: pages per site before the index takes over (m). */
  warmup?: number;
  /** trivial: pages per site in phase 1 (default round(N/K)). */
  explore?: number;
  /** sw-ucb: how many of a site's own latest pages its mean is taken over. */
  window?: number;
  /** thompson: prior mean links per page. */
  priorMean?: number;
  /** thompson: prior weight in pages. */
  priorWeight?: number;
}

/** Defaults. Why each value: see DEFAULT_REASONS and the policies' table in docs/scheduling.md. */
export const DEFAULTS = { quantum: 10, step: 10, warmup: 1, window: 50, priorMean: 1, priorWeight: 20 } as const;

const DEFAULT_REASONS: Record<keyof typeof DEFAULTS, string> = {
  quantum: 'short turns keep the split even whenever the budget runs out; the same size as R2\'s batch',
  step: 'n << N: 0.5% of the article\'s N = 2000 and 1/20 of a site\'s round(N/K) = 200 there',
  warmup: 'one page per site, as UCB1 itself (Auer et al. 2002) plays every arm once',
  window: 'measured: 50-100 of a site\'s own pages score alike, 30 or less is too noisy; 50 is best at small N',
  priorMean: 'one link per page is above most sites\' yield, so an untried site looks promising',
  priorWeight: 'measured: the weakest prior (of 1, 5, 10, 20, 50 pages) that stops empty first pages from burying a site',
};

const SUMMARIES: Record<PolicyName, string> = {
  trivial: 'R1: round(N/K) pages (or --explore m) of every site in turn, the rest to the best first-phase site',
  gittins: 'R2: --step n pages on every site, then n at a time on the largest mean s/t',
  ucb1: 'R3: --warmup m pages on every site, then UCB1 with rewards scaled by the largest page seen',
  'round-robin': '--quantum q pages of every site in turn',
  auto: 'product rule by site group: university -> ucb1, institute -> gittins, other -> round-robin',
  'kl-ucb': 'KL-UCB with the Poisson divergence (link counts), --warmup m',
  thompson: 'Thompson sampling, Gamma-Poisson posterior (--prior-mean, --prior-weight)',
  'ucb1-tuned': 'UCB1-Tuned: the bonus uses each site\'s own variance, --warmup m',
  'sw-ucb': 'UCB1 on the mean of each site\'s own last --window pages (drift with depth), --warmup m',
  'rr-ucb': 'every 5th page to the site with the fewest pages, the others by UCB on each site\'s last --window pages scaled by the best site\'s',
  pages: 'the site whose next page is worth most (with --order value: its predicted new external URLs), one scheduler over the pages of all sites',
};

/** Which parameters each policy reads (for --help and for rejecting stray flags). */
export const POLICY_PARAMS: Record<PolicyName, readonly (keyof PolicyParams)[]> = {
  trivial: ['explore'],
  gittins: ['step'],
  ucb1: ['warmup'],
  'round-robin': ['quantum'],
  auto: ['step', 'warmup', 'quantum'],
  'kl-ucb': ['warmup'],
  thompson: ['priorMean', 'priorWeight'],
  'ucb1-tuned': ['warmup'],
  'sw-ucb': ['window', 'warmup'],
  'rr-ucb': ['window', 'warmup'],
  pages: [],
};

export function isPolicyName(name: string): name is PolicyName {
  return (policyNames as readonly string[]).includes(name);
}

/** One line for --help: what the policy does and its parameters with their defaults. */
export function describePolicy(name: PolicyName): string {
  const params = POLICY_PARAMS[name].map((p) => `${p}=${p === 'explore' ? 'round(N/K)' : DEFAULTS[p]}`);
  return `${name}: ${SUMMARIES[name]}${params.length ? ` [${params.join(', ')}]` : ''}`;
}

/** The defaults and the reason for each, for --help or the README. */
export function describeDefaults(): string[] {
  return (Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]).map((k) => `${k} = ${DEFAULTS[k]}: ${DEFAULT_REASONS[k]}`);
}

function positiveInt(name: string, v: number | undefined, fallback: number, min = 1): number {
  const x = v ?? fallback;
  if (!Number.isInteger(x) || x < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${x}`);
  return x;
}

function positive(name: string, v: number | undefined, fallback: number): number {
  const x = v ?? fallback;
  if (!(x > 0) || !Number.isFinite(x)) throw new RangeError(`${name} must be a positive number, got ${x}`);
  return x;
}

/** Build a policy by name; unknown names and bad parameters throw (RangeError). */
export function makePolicy(name: string, params: PolicyParams = {}): Policy {
  if (!isPolicyName(name)) throw new RangeError(`unknown policy "${name}"; known: ${policyNames.join(', ')}`);
  const quantum = () => positiveInt('quantum', params.quantum, DEFAULTS.quantum);
  const step = () => positiveInt('step', params.step, DEFAULTS.step);
  const warmup = () => positiveInt('warmup', params.warmup, DEFAULTS.warmup);
  switch (name) {
    case 'trivial':
      return trivial(params.explore === undefined ? undefined : positiveInt('explore', params.explore, 0, 0));
    case 'gittins':
      return gittins(step());
    case 'ucb1':
      return ucb1(warmup());
    case 'round-robin':
      return roundRobin(quantum());
    case 'auto':
      return auto({ step: step(), warmup: warmup(), quantum: quantum() });
    case 'kl-ucb':
      return klUcb(warmup());
    case 'thompson':
      return thompson({ priorMean: positive('priorMean', params.priorMean, DEFAULTS.priorMean), priorWeight: positive('priorWeight', params.priorWeight, DEFAULTS.priorWeight) });
    case 'ucb1-tuned':
      return ucb1Tuned(warmup());
    case 'sw-ucb':
      return slidingWindowUcb(positiveInt('window', params.window, DEFAULTS.window), warmup());
    case 'rr-ucb':
      return roundRobinUcb(positiveInt('window', params.window, DEFAULTS.window), warmup());
    case 'pages':
      return pages();
  }
}
