// Policies drive real crawls of the fixture web; traces export and replay through `simulate`.
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyNames } from '../../src/schedule/sites/registry.js';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureSeeds } from '../../fixtures/web.js';
import { beebot, tempDir } from '../helpers/cli.js';

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;
let seeds: string;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  seeds = join(tmp.dir, 'seeds.csv');
  writeFileSync(seeds, ['url,name,short,group', ...fixtureSeeds.map((s) => `${web.url(s.host)},${s.short},${s.short},${s.group}`)].join('\n'));
});
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

const pulls = (db: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare('SELECT f.site_id, s.unavailable IS NOT NULL AS dead FROM fetches f JOIN sites s ON s.id = f.site_id ORDER BY seq').raw().all() as [number, number][];
  } finally {
    d.close();
  }
};

describe('crawling with each policy', () => {
  it.each(policyNames.map((p) => [p]))('%s spends exactly the budget and never returns to a dead site', async (policy) => {
    const db = join(tmp.dir, `${policy}.db`);
    expect((await beebot(['seeds', 'import', seeds], { db })).code).toBe(0);
    const r = await beebot(['crawl', '--policy', policy, '--budget', '60', '--delay', '0', '--concurrency', '1', ...web.resolveArgs()], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('budget reached');
    const p = pulls(db);
    expect(p).toHaveLength(60);
    // the down site is pulled once (its start page), then never again
    const down = fixtureSeeds.findIndex((s) => s.host === 'down.test') + 1;
    expect(p.filter(([site]) => site === down).length).toBeLessThanOrEqual(1);
    const saved = await beebot(['config', 'get', 'policy'], { db });
    expect(saved.stdout.trim()).toBe(policy);
  });
});

describe('trace export and simulate', () => {
  let db: string;
  beforeAll(async () => {
    db = join(tmp.dir, 'full.db');
    await beebot(['seeds', 'import', seeds], { db });
    await beebot(['crawl', '--delay', '0', ...web.resolveArgs()], { db });
  });

  it("writes each site's rewards in crawl order", async () => {
    const file = join(tmp.dir, 'trace.json');
    expect((await beebot(['trace', 'export', file], { db })).code).toBe(0);
    const trace = JSON.parse(readFileSync(file, 'utf8'));
    const d = new Database(db, { readonly: true });
    const perSite = d.prepare('SELECT site_id, group_concat(reward) FROM (SELECT * FROM fetches ORDER BY seq) GROUP BY site_id').raw().all() as [number, string][];
    d.close();
    for (const [id, list] of perSite) {
      expect(trace.sites.find((s: { id: number }) => s.id === id).rewards.join(',')).toBe(list);
    }
    expect(trace.sites.map((s: { group: string }) => s.group)).toEqual(fixtureSeeds.map((s) => s.group));
  });

  it('replays a trace file and a database under every policy, never above the oracle', async () => {
    const file = join(tmp.dir, 'trace.json');
    for (const source of [file, db]) {
      const r = await beebot(['simulate', '--trace', source, '--budget', '100', '--json'], { db: join(tmp.dir, 'unused.db') });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.rows.map((x: { policy: string }) => x.policy)).toEqual([...policyNames]);
      for (const row of out.rows) {
        expect(row.total).toBeLessThanOrEqual(out.oracle);
        expect(row.cumulative).toHaveLength(100);
        expect(row.regret.every((x: number) => x >= 0)).toBe(true);
      }
    }
  });

  it('says when the budget replays the whole trace, where every policy ties at 100%', async () => {
    const simulate = (budget: number) => beebot(['simulate', '--trace', db, '--budget', String(budget)], { db: join(tmp.dir, 'unused.db') });
    const below = await simulate(20);
    expect([below.code, below.stderr]).toEqual([0, '']);
    const pages = Number(/^\d+ sites, (\d+) pages recorded/.exec(below.stdout)![1]);
    for (const budget of [pages, pages + 1000]) {
      const r = await simulate(budget);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`the trace holds ${pages} pages: a budget of ${budget} replays all of them, so every policy reaches 100% of the oracle; use --budget below ${pages} to compare the policies\n`);
      const percents = r.stdout.trim().split('\n').slice(2).map((l) => l.split('\t')[2]);
      expect(new Set(percents)).toEqual(new Set(['100.0%']));
    }
  });

  it('prints a table for a synthetic set; wrong arguments exit 2', async () => {
    const r = await beebot(['simulate', '--synthetic', 'institute', '--budget', '2000', '--policies', 'trivial,gittins,ucb1'], { db: join(tmp.dir, 'unused.db') });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[1]).toBe('policy\texternal links\tof oracle\tregret');
    // the article's order for institutes: R2 (gittins) first
    expect(lines[2]!.split('\t')[0]).toBe('gittins');
    for (const args of [['--budget', '10'], ['--synthetic', 'mixed', '--trace', 'x.json', '--budget', '10'], ['--synthetic', 'mixed', '--budget', '10', '--policies', 'nope']]) {
      expect((await beebot(['simulate', ...args], { db: join(tmp.dir, 'unused.db') })).code, args.join(' ')).toBe(2);
    }
  });
});
