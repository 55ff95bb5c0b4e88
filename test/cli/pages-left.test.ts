// The end of a crawl accounts for every queued page (pure): a line per site whose pages wait for a
// host, ten at most, then one line of totals by why the pages were not fetched.
import { describe, expect, it } from 'vitest';
import type { CrawlSummary, SiteLeft } from '../../src/crawl/run-report.js';
import { pagesLeftLines } from '../../src/cli/pages-left.js';

const site = (i: number, over: Partial<SiteLeft> = {}): SiteLeft => ({
  site: `s${i}`, unavailable: false, capped: false, queued: 0, beyondLevel: 0, hosts: [], due: 0, ...over,
});
const summary = (left: SiteLeft[], reason: CrawlSummary['reason'] = 'budget') => ({ left, reason, maxLevel: 5 }) as unknown as CrawlSummary;
const NOW = new Date(2026, 10, 29, 14, 0, 0).getTime();

describe('pagesLeftLines', () => {
  it('says nothing when nothing is left', () => {
    expect(pagesLeftLines(summary([site(1)]), NOW)).toEqual([]);
  });

  it('names each waiting host with its cause and next try, and totals the rest by why', () => {
    const waiting = site(1, {
      queued: 1213, due: 1200, beyondLevel: 3,
      hosts: [
        { origin: 'http://k.test', pages: 6, earliest: NOW + 30_000, cause: 'robots.txt HTTP 502', nextRun: false },
        { origin: 'https://k.test', pages: 4, earliest: NOW, cause: 'certificate not trusted: self-signed certificate', nextRun: true },
      ],
    });
    expect(pagesLeftLines(summary([waiting, site(2, { queued: 7, due: 7 })]), NOW)).toEqual([
      '  site s1: 1,213 pages left: 1,200 left by the budget; 6 wait for http://k.test (robots.txt HTTP 502; next try 14:00:30); 4 wait for https://k.test (certificate not trusted: self-signed certificate; in the next run); 3 beyond max-level 5',
      'left queued: 1,220 pages of 2 sites: 1,207 due (left by the budget), 10 waiting for 2 hosts, 3 beyond max-level 5',
    ]);
  });

  it('stays a screen long however many sites wait: ten lines, then a count', () => {
    const many = Array.from({ length: 25 }, (_, i) => site(i, { queued: 1, hosts: [{ origin: `http://h${i}.test`, pages: 1, earliest: NOW, cause: 'HTTP 503', nextRun: false }] }));
    const lines = pagesLeftLines(summary(many, 'exhausted'), NOW);
    expect(lines).toHaveLength(12);
    expect(lines[10]).toBe('  and 15 more sites with pages waiting for a host (beebot status --json lists them all)');
    expect(lines[11]).toBe('left queued: 25 pages of 25 sites: 25 waiting for 25 hosts');
  });
});
