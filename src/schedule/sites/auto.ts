import { gittins } from './gittins.js';
import type { Arm, Policy } from './policy.js';
import { roundRobin } from './round-robin.js';
import { ucb1 } from './ucb1.js';

export type AutoKind = 'university' | 'institute' | 'other';

/** The article's product rule reads the site's group: universities, institutes, the rest. */
export function autoKind(group: string | null): AutoKind {
  const g = group?.trim().toLowerCase();
  return g === 'university' || g === 'institute' ? g : 'other';
}

export interface AutoOptions {
  step: number;
  warmup: number;
  quantum: number;
}

/**
 * The article's product rule: universities -> R3 (UCB1), institutes -> R2, anything else
 * (unknown group included) -> the time quantum (round-robin). The article picks one rule per
 * set; for a set mixing groups each group becomes its own bandit: the crawl gives the next page
 * to the group with the fewest pulls per site (so each group's share of the budget is
 * proportional to its number of sites; ties to the group holding the lowest site id), and that
 * group's rule picks among its sites from the group's own statistics and history. A group with
 * no open site is skipped, so its unspent share flows to the others. With one group only this
 * is exactly that group's rule. Stateless like its parts.
 */
export function auto({ step, warmup, quantum }: AutoOptions): Policy {
  const rules: Record<AutoKind, Policy> = { university: ucb1(warmup), institute: gittins(step), other: roundRobin(quantum) };
  return (input) => {
    const groups = new Map<AutoKind, Arm[]>();
    for (const a of [...input.arms].sort((x, y) => x.id - y.id)) {
      const k = autoKind(a.group);
      groups.set(k, [...(groups.get(k) ?? []), a]);
    }
    let chosen: [AutoKind, Arm[]] | undefined;
    let least = Infinity;
    for (const [k, arms] of groups) {
      if (!arms.some((a) => a.open)) continue;
      const perSite = arms.reduce((s, a) => s + a.pulls, 0) / arms.length;
      if (perSite < least) [chosen, least] = [[k, arms], perSite];
    }
    if (!chosen) return null;
    const [kind, arms] = chosen;
    const ids = new Set(arms.map((a) => a.id));
    const budget = input.budget === null ? null : Math.round((input.budget * arms.length) / input.arms.length);
    return rules[kind]({ arms, history: input.history.filter((id) => ids.has(id)), budget, random: input.random });
  };
}
