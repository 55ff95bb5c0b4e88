// What a run says at its end, from what it counted: the rules tested directly (the summaries the
// CLI prints from them are checked end to end in test/crawl and test/cli).
import { describe, expect, it } from 'vitest';
import { stopReason } from '../../src/crawl/run-summary.js';
import { RunTally } from '../../src/crawl/run-tally.js';
import { sitesAtEnd } from '../../src/crawl/run-report.js';
import type { QueuedLeft } from '../../src/store/frontier.js';
import type { Site } from '../../src/store/sites.js';

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

describe('why a site stopped', () => {
  const site = (id: number, unavailable: string | null): Site => ({
    id, url: `http://s${id}.test/`, name: null, short: `s${id}`, group: null, unavailable, failures: 0, pulls: 1, rewardSum: 0, rewardMax: 0, deepest: 0,
    scope: null, include: null, exclude: null, sitemaps: null, sitemapsRead: null, sitemapFiles: null, sitemapProblems: null,
  });
  const left = (startQueued: boolean): QueuedLeft => ({ queued: 3, beyondLevel: 0, startQueued, waiting: new Map() });

  it('is Not Available for this run only while its start page is still queued, whatever the reason says', () => {
    const sites = [site(1, 'a reason in any words'), site(2, 'start page failed for now (3 attempts)'), site(3, 'gave up: 5 pages in a row failed'), site(4, null)];
    const { stopped } = sitesAtEnd(sites, new Map([[1, left(true)], [2, left(false)], [4, left(true)]]), new Map(), new Map(), () => false);
    expect(stopped).toEqual([
      { site: 's1', why: 'not available in this run: a reason in any words' },
      { site: 's2', why: 'not available: start page failed for now (3 attempts) (beebot seeds retry tries it again)' },
      { site: 's3', why: 'not available: gave up: 5 pages in a row failed (beebot seeds retry tries it again)' },
    ]);
  });
});
