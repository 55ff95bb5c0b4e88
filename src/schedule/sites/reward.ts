/**
 * What one pull earns. Every pull stores all three numbers; the setting `reward` says which one
 * the scheduler maximises, so a crawl can be replayed under any mode (`simulate --reward`).
 * - urls: external URLs new to the site (what a user counts: distinct links, not template repeats)
 * - hosts: outside hosts new to the site (coverage of the companion set)
 * - pairs: (page, external URL) pairs new to the store (a footer link pays on every page)
 */
export const rewardModes = ['urls', 'hosts', 'pairs'] as const;
export type RewardMode = (typeof rewardModes)[number];

export interface Rewards {
  urls: number;
  hosts: number;
  pairs: number;
}

export function rewardOf(mode: RewardMode, r: Rewards): number {
  return r[mode];
}
