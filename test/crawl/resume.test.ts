// Interrupt a crawl (SIGINT and SIGKILL) at random points, resume to completion, and check that
// the final internal, external and bad tables equal those of an uninterrupted crawl, row for row.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/schedule/sites/random.js';
import { startFixtureWeb, type FixtureWeb } from '../../fixtures/server.js';
import { fixtureSeeds } from '../../fixtures/web.js';
import { beebot, tempDir } from '../helpers/cli.js';

let web: FixtureWeb;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  web = await startFixtureWeb();
  tmp = tempDir();
  writeFileSync(join(tmp.dir, 'seeds.txt'), fixtureSeeds.map((s) => web.url(s.host)).join('\n') + '\n');
});
afterAll(async () => {
  await web?.close();
  tmp?.cleanup();
});

async function freshDb(name: string): Promise<string> {
  const db = join(tmp.dir, name);
  const r = await beebot(['seeds', 'import', join(tmp.dir, 'seeds.txt')], { db });
  expect(r.code).toBe(0);
  // Failures permanent at once: a page waiting for its host's back-off makes the picks depend on
  // time, and these crawls must pick alike (failures that may pass: transient-failures.test.ts).
  for (const [k, v] of [['retry-attempts', '1'], ['retry-span', '0']]) expect((await beebot(['config', 'set', k, v], { db })).code).toBe(0);
  return db;
}

interface Case {
  concurrency: number;
  policy: string;
  budget?: number;
}
const crawlArgs = (c: Case) => [
  'crawl', '--delay', '0', '--concurrency', String(c.concurrency), '--policy', c.policy,
  ...(c.budget ? ['--budget', String(c.budget)] : []), ...web.resolveArgs(),
];

/** Run a crawl and send `signal` once it has reported `afterPages` pages (plus a random few ms). */
async function interruptedCrawl(db: string, c: Case, signal: NodeJS.Signals, afterPages: number, extraMs: number) {
  const run = beebot(crawlArgs(c), { db });
  let lines = 0;
  let sent = false;
  run.child.stderr!.on('data', (d: Buffer | string) => {
    lines += String(d).split('\n').length - 1;
    if (!sent && lines >= afterPages) {
      sent = true;
      setTimeout(() => run.child.kill(signal), extraMs);
    }
  });
  return run;
}

/** The three link tables as plain rows; page ids replaced by URLs so two databases compare. */
function tables(file: string, ordered: boolean) {
  const db = new Database(file, { readonly: true });
  const order = (by: string) => (ordered ? `ORDER BY ${by}` : 'ORDER BY 1, 2, 3, 4');
  const out = {
    internal: db
      .prepare(`SELECT p.site_id, p.key, p.url, p.level, p.status, ${ordered ? 'f.key' : "''"} FROM pages p LEFT JOIN pages f ON f.id = p.found_on ${order('p.id')}`)
      .raw()
      .all(),
    external: db
      .prepare(`SELECT e.site_id, p.key, e.key, e.url, e.level, e.anchor, e.rel, e.tag FROM external_links e JOIN pages p ON p.id = e.page_id ${order('e.id')}`)
      .raw()
      .all(),
    bad: db.prepare(`SELECT b.site_id, p.key, b.raw, b.reason FROM bad_links b JOIN pages p ON p.id = b.page_id ${order('b.id')}`).raw().all(),
    pulls: ordered ? db.prepare('SELECT f.site_id, p.key, f.reward FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq').raw().all() : [],
  };
  db.close();
  return out;
}

describe('interrupt and resume', () => {
  // One worker: the crawl is deterministic, so the resumed run must make the same choices as an
  // uninterrupted one (policy state rebuilt from the database), random policies included.
  const cases: Case[] = [
    { concurrency: 1, policy: 'rr-ucb' }, // the default, with the default reward (urls)
    { concurrency: 1, policy: 'thompson' },
    { concurrency: 1, policy: 'trivial', budget: 150 },
    { concurrency: 3, policy: 'round-robin' },
  ];
  for (const c of cases) {
    const { concurrency } = c;
    it(`loses and duplicates nothing: --concurrency ${concurrency} --policy ${c.policy}${c.budget ? ` --budget ${c.budget}` : ''}`, async () => {
      const name = `${c.policy}-${concurrency}`;
      const reference = await freshDb(`reference-${name}.db`);
      const full = await beebot(crawlArgs(c), { db: reference });
      expect(full.code).toBe(0);
      const pages = tables(reference, true).pulls.length;

      const db = await freshDb(`interrupted-${name}.db`);
      const rnd = mulberry32(concurrency * 7919);
      const outcomes: string[] = [];
      for (let round = 0; round < 8; round++) {
        const signal: NodeJS.Signals = round % 2 === 0 ? 'SIGINT' : 'SIGKILL';
        const r = await interruptedCrawl(db, c, signal, 1 + Math.floor(rnd() * (pages / 4)), Math.floor(rnd() * 15));
        outcomes.push(`${signal}:${r.code ?? r.signal}`);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        if (r.code === 0) break; // finished before the signal landed
        // Before the crawl took its Ctrl-C handler or after it let it go (done, committed): the
        // default action ends the process, with nothing half-written. The tables below show it.
        if (signal === 'SIGINT' && r.signal === 'SIGINT') continue;
        if (signal === 'SIGINT') {
          expect(r.code).toBe(130);
          expect(r.stdout).toContain('stopped: interrupted');
        } else {
          expect(r.signal).toBe('SIGKILL');
        }
      }
      const last = await beebot(crawlArgs(c), { db });
      expect(last.code, outcomes.join(' ')).toBe(0);
      expect(last.stdout).toContain(c.budget ? 'budget reached' : 'every site exhausted');

      // With one worker the whole crawl is deterministic: tables AND the pull sequence match row
      // for row. With several, completion order varies, so the sets of rows must match.
      const ordered = concurrency === 1;
      const a = tables(reference, ordered);
      const b = tables(db, ordered);
      expect(b.internal).toEqual(a.internal);
      expect(b.external).toEqual(a.external);
      expect(b.bad).toEqual(a.bad);
      if (ordered) expect(b.pulls).toEqual(a.pulls);
      // the signals really landed mid-crawl, both kinds
      expect(outcomes.filter((o) => o === 'SIGINT:130').length, outcomes.join(' ')).toBeGreaterThanOrEqual(2);
      expect(outcomes.filter((o) => o === 'SIGKILL:SIGKILL').length, outcomes.join(' ')).toBeGreaterThanOrEqual(2);
    });
  }
});
