import { describe, expect, it } from 'vitest';
import { compare } from '../../src/schedule/sites/compare.js';
import { policyNames } from '../../src/schedule/sites/registry.js';
import { SAMPLE_SITES, synthetic } from '../../src/schedule/sites/synthetic.js';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('synthetic site sets', () => {
  it('mixed is the article\'s sample table: every site has exactly its pages and links', () => {
    const sites = synthetic('mixed', 1);
    expect(sites.map((s) => [s.name, s.group, s.rewards.length, sum(s.rewards)])).toEqual(SAMPLE_SITES.map((s) => [s.name, s.group, s.pages, s.links]));
  });

  it.each(['institute', 'university'] as const)('%s: the five table rows plus a twin of each scaled by [1/2, 2]', (kind) => {
    const sites = synthetic(kind, 3);
    const rows = SAMPLE_SITES.filter((s) => s.group === kind);
    expect(sites).toHaveLength(10);
    expect(sites.every((s) => s.group === kind)).toBe(true);
    rows.forEach((row, i) => {
      expect([sites[i]!.name, sites[i]!.rewards.length, sum(sites[i]!.rewards)]).toEqual([row.name, row.pages, row.links]);
      const twin = sites[i + 5]!;
      const factor = twin.rewards.length / row.pages;
      expect(twin.name).toBe(`${row.name}~2`);
      expect(factor).toBeGreaterThanOrEqual(0.49);
      expect(factor).toBeLessThanOrEqual(2.01);
      expect(Math.abs(sum(twin.rewards) - row.links * factor)).toBeLessThanOrEqual(1 + row.links * 0.01);
    });
  });

  it('is deterministic for a seed and differs between seeds', () => {
    expect(synthetic('university', 5)).toEqual(synthetic('university', 5));
    expect(synthetic('university', 5)).not.toEqual(synthetic('university', 6));
  });

  it('has the shapes the article describes: universities empty at the top, institutes clumped', () => {
    // universities: many sites show nothing in their first 10 pages (navigation before content)
    const uni = [1, 2, 3].flatMap((seed) => synthetic('university', seed));
    expect(uni.filter((s) => sum(s.rewards.slice(0, 10)) === 0).length).toBeGreaterThan(uni.length / 3);
    // institutes: most pages carry no link at all
    const inst = [1, 2, 3].flatMap((seed) => synthetic('institute', seed));
    const pages = inst.flatMap((s) => s.rewards.slice(0, 2000));
    expect(pages.filter((r) => r === 0).length / pages.length).toBeGreaterThan(0.85);
  });

  // A tripwire for the calibration (the figures are in the bench output): with the default
  // parameters, medians over seeds 1-5 at N = 2000 order R1/R2/R3 as the article's table does.
  it('reproduces the article\'s orderings at N = 2000', () => {
    const totals = (kind: 'institute' | 'university' | 'mixed') => {
      const runs = [1, 2, 3, 4, 5].map((seed) => compare(synthetic(kind, seed), 2000, ['trivial', 'gittins', 'ucb1'], { seed }).rows.map((r) => r.total));
      return [0, 1, 2].map((i) => median(runs.map((r) => r[i]!)));
    };
    const [i1, i2, i3] = totals('institute');
    expect(i2! > i3! && i3! > i1!).toBe(true);
    const [u1, u2, u3] = totals('university');
    expect(u3! > u1! && u1! > u2!).toBe(true);
    const [m1, m2, m3] = totals('mixed');
    expect(m3! > m2! && m2! > m1!).toBe(true);
  });
});

describe('compare (replay of every policy against the oracle)', () => {
  it('reports totals, % of oracle and a regret curve that never goes below 0', () => {
    const sites = synthetic('mixed', 2).map((s) => ({ ...s, rewards: s.rewards.slice(0, 300) }));
    const result = compare(sites, 600, policyNames, { seed: 2 });
    expect(result.rows.map((r) => r.policy)).toEqual([...policyNames]);
    for (const row of result.rows) {
      expect(row.cumulative).toHaveLength(600);
      expect(row.total).toBe(row.cumulative[599]);
      expect(row.percent).toBeCloseTo((100 * row.total) / result.oracle, 9);
      expect(row.regret.every((x) => x >= 0)).toBe(true);
      expect(row.regret[599]).toBe(result.oracle - row.total);
    }
  });
});
