import type { Rewards } from '../schedule/sites/reward.js';
import type { Committed } from '../pull/pull-record.js';

/** What this run stored, counted for its summary (the store's totals are the writer's and the coordinator's). */
export class RunTally {
  pulls = 0;
  readonly rewards: Rewards = { urls: 0, hosts: 0, pairs: 0 };
  newUrls = 0;
  newHosts = 0;
  /** pulls that reached their server (anything but a failure for now): until one does, the run waits longer and fails no page for good */
  reached = 0;
  /** pages stored per host: what politeness alone costs (run-report.ts politenessBound) */
  readonly pagesPerHost = new Map<string, number>();

  /** A pull of a page on `host` was stored. */
  stored(host: string, c: Pick<Committed, 'rewards' | 'newUrls' | 'newHosts'>): void {
    this.pagesPerHost.set(host, (this.pagesPerHost.get(host) ?? 0) + 1);
    this.pulls++;
    this.rewards.urls += c.rewards.urls;
    this.rewards.hosts += c.rewards.hosts;
    this.rewards.pairs += c.rewards.pairs;
    this.newUrls += c.newUrls;
    this.newHosts += c.newHosts;
  }
}
