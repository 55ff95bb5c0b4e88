// What a run says at its end, from what it counted: the rules tested directly (the summaries the
// CLI prints from them are checked end to end in test/crawl and test/cli).
import { describe, expect, it } from 'vitest';
import { stopReason } from '../../src/crawl/run-summary.js';
import { RunTally } from '../../src/crawl/run-tally.js';

describe('why a run stopped', () => {
  it('an interruption wins over everything', () => {
    expect(stopReason('exhausted', true, 10, 10)).toBe('interrupted');
    expect(stopReason('waiting', true, null, 3)).toBe('interrupted');
  });

  it('a spent budget wins over what the workers ended on: another worker of the crawl may have spent it', () => {
    expect(stopReason('exhausted', false, 10, 10)).toBe('budget');
    expect(stopReason('waiting', false, 10, 12)).toBe('budget');
  });

  it("otherwise it is the workers' reason", () => {
    expect(stopReason('exhausted', false, 10, 9)).toBe('exhausted');
    expect(stopReason('waiting', false, null, 1_000)).toBe('waiting');
    expect(stopReason('budget', false, null, 0)).toBe('budget');
  });
});

describe("a run's tally", () => {
  it('counts each stored pull, its rewards, what was new to the store and the pages per host', () => {
    const t = new RunTally();
    t.stored('a.test', { rewards: { urls: 3, hosts: 1, pairs: 4 }, newUrls: 2, newHosts: 1 });
    t.stored('b.test:8080', { rewards: { urls: 0, hosts: 0, pairs: 1 }, newUrls: 0, newHosts: 0 });
    t.stored('a.test', { rewards: { urls: 1, hosts: 1, pairs: 1 }, newUrls: 1, newHosts: 1 });
    expect(t.pulls).toBe(3);
    expect(t.rewards).toEqual({ urls: 4, hosts: 2, pairs: 6 });
    expect([t.newUrls, t.newHosts]).toEqual([3, 2]);
    expect([...t.pagesPerHost]).toEqual([['a.test', 2], ['b.test:8080', 1]]);
    expect(t.reached).toBe(0); // reaching a server is counted where the answer is known, stored or not
  });
});
