// One frontier contract (src/schedule/page-frontier.ts), the same cases against each implementation:
// the replay's queue in memory (src/schedule/memory-frontier.ts), and the live crawl's queue in the
// store (src/store/stored-frontier.ts) on SQLite and on a PostgreSQL server this file starts.
// Each case is a script of operations with the picks it must give; a randomised script of a few
// hundred steps must give the same picks on all three.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/db.js';
import { MemoryFrontier } from '../../src/schedule/memory-frontier.js';
import { StoredFrontier } from '../../src/store/stored-frontier.js';
import { START } from '../../src/schedule/links/priority.js';
import { mulberry32 } from '../../src/schedule/sites/random.js';
import type { FoundPage, PageFrontier } from '../../src/schedule/page-frontier.js';
import type { FrontierPage, OrderState } from '../../src/schedule/queued-page.js';
import type { Prioritize, Rescore } from '../../src/schedule/links/rescore.js';
import { createDatabase, startPostgres, type PgCluster } from '../helpers/postgres.js';

/** Scores as the orders give them: a page with stored cues from them and its state alone (the store reads no url or anchor then). */
const PRIORITIZE: Record<string, Prioritize> = {
  /** 'u:c' pages first, then 'u:a' ones; a page without cues by its url and anchor */
  cuesRank: (_s, url, anchor, st) => (st.cues ? (st.cues.includes('u:c') ? 20 : st.cues.includes('u:a') ? 2 : 0) : url.length / 10 + anchor.length),
  /** from the whole state: what the random script re-scores with */
  mixed: (s, url, anchor, st) => (st.cues ? st.cues.length * 3 - st.cash * 4 + st.inherit - st.dist + st.inlinks + s : (url.length * 7 + anchor.length * 3 + s) % 11),
  one: () => 1,
};

type Op =
  | ['add', FoundPage]
  | ['raise', number, number]
  | ['nearer', number, number]
  | ['update', number, number, OrderState, number]
  | ['rescore', number, keyof typeof PRIORITIZE, Rescore]
  | ['take', number]
  | ['defer', number, number, number, number]
  | ['putOff', number, string, number]
  /** observations: the site's next page (id, or id@level), all its pages taken in turn, its soonest retry, its queued count */
  | ['next', number, number?]
  | ['drain', number, number?]
  | ['soonest', number]
  | ['queued', number];

interface Case {
  name: string;
  ordered: boolean;
  maxLevel: number;
  sites: number;
  ops: Op[];
  /** what the observations give, in turn */
  expected: unknown[];
}

const NOW = 1_000_000;
const url = (site: number, id: number, host = `s${site}.example`) => `https://${host}/p${id}`;
const page = (site: number, id: number, level: number, extra: Partial<FoundPage> = {}): Op => ['add', { id, siteId: site, url: url(site, id), level, ...extra }];
const state = (cash: number, inherit = 0, dist = 0, inlinks = 0, cues = ''): OrderState => ({ cues, cash, inherit, dist, inlinks });

const CASES: Case[] = [
  {
    name: 'breadth-first: level, then discovery order; pages beyond max-level wait until a link brings them within',
    ordered: false, maxLevel: 2, sites: 1,
    ops: [page(1, 1, 0), page(1, 2, 2), page(1, 3, 1), page(1, 4, 1), page(1, 5, 3), page(1, 6, 2), ['drain', 1], ['queued', 1], ['next', 1], ['raise', 5, 2], ['next', 1]],
    expected: [[1, 3, 4, 2, 6], 1, null, '5@2'],
  },
  {
    name: 'breadth-first: a page found nearer moves up at once; a farther link changes nothing',
    ordered: false, maxLevel: 5, sites: 1,
    ops: [page(1, 1, 1), page(1, 2, 2), page(1, 3, 3), page(1, 4, 2), ['raise', 3, 1], ['raise', 4, 4], ['drain', 1]],
    expected: [[1, 3, 2, 4]],
  },
  {
    name: 'ordered: priority first, then the level, then id; unscored pages wait for a score, a start page comes first',
    ordered: true, maxLevel: 5, sites: 1,
    ops: [
      page(1, 1, 2, { priority: 3 }), page(1, 2, 1, { priority: 3 }), page(1, 3, 1, { priority: 3 }),
      page(1, 4, 1, { priority: 7, anchor: 'x', cues: 'u:a', cash: 0.25 }), page(1, 5, 1), page(1, 6, 0),
      ['next', 1], ['drain', 1], ['queued', 1], ['rescore', 1, 'one', 'unscored'], ['drain', 1],
    ],
    expected: ['4@1', [4, 2, 3, 1], 2, [6, 5]],
  },
  {
    name: 'ordered: max-level cuts the order; a nearer link within it brings a page in at once',
    ordered: true, maxLevel: 1, sites: 1,
    ops: [page(1, 1, 0, { priority: START }), page(1, 2, 2, { priority: 9 }), page(1, 3, 1, { priority: 1 }), ['drain', 1], ['queued', 1], ['nearer', 2, 1], ['next', 1]],
    expected: [[1, 3], 1, '2@1'],
  },
  {
    name: 'ordered by value: a nearer level waits beside the page; the order reads the queued level, the fetch the nearer one',
    ordered: true, maxLevel: 3, sites: 1,
    ops: [
      page(1, 1, 3, { priority: 2 }), page(1, 2, 2, { priority: 2 }), page(1, 3, 5, { priority: 9 }),
      ['nearer', 1, 1], ['nearer', 1, 2], ['next', 1], ['nearer', 3, 4], ['next', 1], ['nearer', 3, 3], ['next', 1],
      ['take', 3], ['take', 2], ['next', 1],
    ],
    expected: ['2@2', '2@2', '3@3', '1@1'],
  },
  {
    name: 'ordered, tracking known pages: a queued page found again takes its new priority, state and a nearer level',
    ordered: true, maxLevel: 5, sites: 1,
    ops: [page(1, 1, 3, { priority: 1, cues: 'u:a' }), page(1, 2, 1, { priority: 2 }), ['next', 1], ['update', 1, 4, state(0.5, 0.25, 1, 2), 2], ['next', 1], ['drain', 1]],
    expected: ['2@1', '1@2', [1, 2]],
  },
  {
    name: 'a page that failed for now waits for its retry time; a held origin puts off its pages there',
    ordered: false, maxLevel: 5, sites: 1,
    ops: [
      page(1, 1, 1, { url: 'https://a.example/p1' }), page(1, 2, 1, { url: 'https://a.example/p2' }), page(1, 3, 1, { url: 'https://b.example/q' }),
      page(1, 4, 1, { url: 'https://a.example.org/x' }), page(1, 5, 1, { url: 'https://axb.example/y' }),
      ['defer', 1, 1, 100, NOW + 1000], ['next', 1, NOW + 500], ['soonest', 1],
      ['putOff', 1, 'https://a.example', NOW + 2000], // page 1's retry moves later, page 2 waits too
      ['putOff', 1, 'https://a_b.example', NOW + 3000], // '_' is no wildcard: axb.example is another origin
      ['drain', 1, NOW + 500], ['soonest', 1], ['next', 1, NOW + 1999], ['drain', 1, NOW + 2000],
    ],
    expected: ['2@1', NOW + 1000, [3, 4, 5], NOW + 2000, null, [1, 2]],
  },
  {
    name: 'ordered: pages that wait beyond max-level or unscored are not the site\'s soonest retry',
    ordered: true, maxLevel: 2, sites: 1,
    ops: [
      page(1, 1, 3, { priority: 5 }), page(1, 2, 1), page(1, 3, 1, { priority: 1 }),
      ['defer', 1, 1, 100, NOW + 100], ['defer', 2, 1, 100, NOW + 200], ['defer', 3, 1, 100, NOW + 300],
      ['next', 1, NOW], ['soonest', 1], ['rescore', 1, 'one', 'unscored'], ['soonest', 1], ['drain', 1, NOW + 250], ['queued', 1],
    ],
    expected: [null, NOW + 300, NOW + 200, [2], 2],
  },
  {
    name: 'a page taken is never returned, whatever links it again',
    ordered: false, maxLevel: 5, sites: 1,
    ops: [page(1, 1, 1), page(1, 2, 1), page(1, 3, 2), ['take', 2], ['raise', 2, 0], ['defer', 2, 1, 100, NOW + 10], ['queued', 1], ['drain', 1], ['next', 1], ['queued', 1]],
    expected: [2, [1, 3], null, 0],
  },
  {
    name: 'ordered: a re-score changes the order, only the pages `which` picks, start pages first',
    ordered: true, maxLevel: 5, sites: 1,
    ops: [
      page(1, 1, 0, { priority: START }), page(1, 2, 1, { priority: 5, cues: 'u:a t:b' }), page(1, 3, 1, { priority: 1, cues: 'u:c' }),
      page(1, 4, 1, { priority: 8, cues: 'u:a' }), page(1, 5, 1, { priority: 3, anchor: 'zz' }),
      ['rescore', 1, 'cuesRank', { cues: ['u:a'], above: 6 }], ['take', 1], ['drain', 1],
    ],
    expected: [[2, 5, 4, 3]],
  },
  {
    name: 'ordered: a whole re-score; every page scored again, the start page still first',
    ordered: true, maxLevel: 5, sites: 1,
    ops: [
      page(1, 1, 0, { priority: START }), page(1, 2, 1, { priority: 5, cues: 'u:a t:b' }), page(1, 3, 1, { priority: 1, cues: 'u:c' }),
      page(1, 4, 1, { priority: 8, cues: 'u:a' }), page(1, 5, 1, { priority: 3, anchor: 'zz' }),
      ['rescore', 1, 'cuesRank', 'all'], ['drain', 1],
    ],
    expected: [[1, 3, 5, 2, 4]],
  },
  {
    name: 'many sites: each site its own order; a take, a put-off, a re-score of one site leaves the others alone',
    ordered: true, maxLevel: 5, sites: 3,
    ops: [
      page(1, 1, 1, { priority: 2, cues: 'u:a' }), page(2, 2, 1, { priority: 1 }), page(3, 3, 1, { priority: 4, url: 'https://cdn.example/3' }),
      page(1, 4, 1, { priority: 3, url: 'https://cdn.example/4' }), page(2, 5, 1, { priority: 7, url: 'https://cdn.example/5' }), page(3, 6, 2, { priority: 4 }),
      ['next', 1], ['next', 2], ['next', 3],
      ['putOff', 1, 'https://cdn.example', NOW + 100], ['take', 5], ['rescore', 1, 'cuesRank', 'all'],
      ['next', 1, NOW], ['next', 2, NOW], ['next', 3, NOW], ['queued', 1], ['queued', 2], ['queued', 3],
      ['drain', 3, NOW], ['drain', 2, NOW], ['drain', 1, NOW], ['next', 1, NOW + 100],
    ],
    expected: ['4@1', '5@1', '3@1', '1@1', '2@1', '3@1', 2, 1, 2, [3, 6], [2], [1], '4@1'],
  },
];

/** A page as the contract compares it: the store's untried page and the memory's read alike. */
const whole = (p: FrontierPage | undefined) => (p === undefined ? null : { ...p, attempts: p.attempts ?? 0, firstFailedAt: p.firstFailedAt ?? null });

/**
 * Run a script: what its observations give (short, for the cases' expectations) and the whole of
 * every page it picked and every number it read (for the implementations against each other).
 */
function run(f: PageFrontier, ops: Op[]): { seen: unknown[]; whole: unknown[] } {
  const seen: unknown[] = [];
  const all: unknown[] = [];
  const next = (site: number, now: number | undefined) => {
    const p = f.nextPage(site, now ?? NOW);
    all.push(whole(p));
    return p;
  };
  for (const op of ops) {
    switch (op[0]) {
      case 'add': f.add(op[1]); break;
      case 'raise': f.raise(op[1], op[2]); break;
      case 'nearer': f.nearer(op[1], op[2]); break;
      case 'update': f.update(op[1], op[2], op[3], op[4]); break;
      case 'rescore': f.rescore(op[1], PRIORITIZE[op[2]]!, op[3]); break;
      case 'take': f.take(op[1]); break;
      case 'defer': f.defer(op[1], op[2], op[3], op[4]); break;
      case 'putOff': f.putOff(op[1], op[2], op[3]); break;
      case 'next': {
        const p = next(op[1], op[2]);
        seen.push(p ? `${p.id}@${p.level}` : null);
        break;
      }
      case 'drain': {
        const ids: number[] = [];
        for (let p; (p = next(op[1], op[2])); ids.push(p.id)) {
          if (ids.length > 1000) throw new Error('the frontier gives the same page again');
          f.take(p.id);
        }
        seen.push(ids);
        break;
      }
      case 'soonest': seen.push(f.soonestRetry(op[1])); all.push(seen.at(-1)); break;
      case 'queued': seen.push(f.queued(op[1])); all.push(seen.at(-1)); break;
    }
  }
  return { seen, whole: all };
}

/**
 * A random script over three sites: pages added with random levels and priorities (ties
 * common), raised, found nearer, updated, re-scored, taken, deferred and put off, the clock
 * moving on. A site's soonest retry is read where the crawl reads it: when it has no page due.
 */
function randomScript(seed: number, ordered: boolean, count: number): Op[] {
  const r = mulberry32(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const hosts = (site: number) => [`s${site}.example`, `www.s${site}.example`, 'shared.example'];
  const ops: Op[] = [];
  let id = 0;
  let now = NOW;
  /** a page found lately: most are still queued */
  const recentId = () => id - int(Math.min(id, 20));
  const cues = ['', 'u:a', 'u:c', 'u:a t:b', 'p:nav'];
  for (let i = 0; i < count; i++) {
    const site = 1 + int(3);
    const roll = r();
    if (id === 0 || roll < 0.35) {
      id++;
      const extra: Partial<FoundPage> = ordered
        ? { priority: r() < 0.15 ? null : int(8), anchor: pick(['', 'news', 'a b']), cues: pick(cues) || null, cash: pick([null, 0, 0.5, 1.25]), inherit: pick([null, 0, 1]), dist: int(3), inlinks: int(4) }
        : {};
      ops.push(['add', { id, siteId: site, url: url(site, id, pick(hosts(site))), level: int(6), ...extra }]);
    } else if (roll < 0.43) ops.push(['raise', recentId(), int(5)]);
    else if (roll < 0.52 && ordered) ops.push(['nearer', recentId(), int(5)]);
    else if (roll < 0.56 && ordered) ops.push(['update', recentId(), int(8), state(pick([0, 0.5, 2]), int(2), int(3), int(5), pick(cues)), int(6)]);
    else if (roll < 0.6 && ordered) ops.push(['rescore', site, 'mixed', pick<Rescore>(['all', 'unscored', { cues: ['u:a'] }, { cues: ['u:c', 'p:nav'], above: 3 }])]);
    else if (roll < 0.64) ops.push(['defer', recentId(), 1 + int(3), now - int(1000), now + int(3000)]);
    else if (roll < 0.66) ops.push(['putOff', site, `https://${pick(hosts(site))}`, now + int(3000)]);
    else if (roll < 0.7) now += int(1500);
    else if (roll < 0.72) ops.push(['queued', site]);
    else if (roll < 0.73) ops.push(['drain', site, now]);
    else {
      // the crawl's step: the site's next page, fetched; when none is due, when one will be
      ops.push(['next', site, now], ['soonest', site]);
    }
  }
  return ops;
}

/** The random script with each pick taken: 'next' then the page it gave is taken, as a crawl does. */
function runCrawl(f: PageFrontier, ops: Op[]): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op[0] === 'next') {
      const p = f.nextPage(op[1], op[2]);
      out.push(['pick', op[1], whole(p)]);
      if (p) f.take(p.id);
      if (p && ops[i + 1]?.[0] === 'soonest') i++; // the site had a page due: no soonest retry is read
    } else out.push(...run(f, [op]).whole.map((w) => [op[0], op[1], w]));
  }
  return out;
}

interface Impl {
  name: string;
  open(ordered: boolean, maxLevel: number, sites: number): Promise<{ f: PageFrontier; close(): void }>;
}

let cluster: PgCluster | undefined;

/** The store's sites, as `seeds import` adds them but without their start pages: a script adds every page. */
function withSites(db: Db, n: number): Db {
  const add = db.prepare(`INSERT INTO sites (url, added_at) VALUES (?, ?)`);
  for (let s = 1; s <= n; s++) add.run(`https://s${s}.example/`, new Date(NOW).toISOString());
  return db;
}

const stored = (db: Db, ordered: boolean, maxLevel: number, sites: number) => {
  const f = new StoredFrontier(withSites(db, sites), ordered, maxLevel);
  return { f, close: () => db.close() };
};

const IMPLS: Impl[] = [
  { name: 'memory', open: async (ordered, maxLevel) => ({ f: new MemoryFrontier(ordered, maxLevel), close: () => {} }) },
  { name: 'SQLite store', open: async (ordered, maxLevel, sites) => stored(openDb(':memory:'), ordered, maxLevel, sites) },
  { name: 'PostgreSQL store', open: async (ordered, maxLevel, sites) => stored(openDb(await createDatabase(cluster!)), ordered, maxLevel, sites) },
];

beforeAll(async () => {
  cluster = await startPostgres();
});

afterAll(async () => {
  await cluster?.stop();
});

describe.each(IMPLS)('frontier contract: $name', (impl) => {
  const reference = (c: { ordered: boolean; maxLevel: number }, ops: Op[]) => run(new MemoryFrontier(c.ordered, c.maxLevel), ops);

  it.each(CASES)('$name', async (c) => {
    const { f, close } = await impl.open(c.ordered, c.maxLevel, c.sites);
    try {
      const got = run(f, c.ops);
      expect(got.seen).toEqual(c.expected);
      // the whole pages too (levels, priorities, state, attempts), as the memory frontier gives them
      if (impl.name !== 'memory') expect(got.whole).toEqual(reference(c, c.ops).whole);
    } finally {
      close();
    }
  });
});

describe('frontier contract: a random script', () => {
  it.each([false, true])('of 400 random steps picks alike in memory, in SQLite and in PostgreSQL (ordered: %s)', async (ordered) => {
    const ops = randomScript(ordered ? 11 : 7, ordered, 400);
    const runs: unknown[][] = [];
    for (const impl of IMPLS) {
      const { f, close } = await impl.open(ordered, 3, 3);
      try {
        runs.push(runCrawl(f, ops));
      } finally {
        close();
      }
    }
    const [memory, sqlite, postgres] = runs;
    const picked = memory!.filter((x) => (x as unknown[])[0] === 'pick' && (x as unknown[])[2] !== null);
    expect(picked.length).toBeGreaterThan(40); // a script that picks, not one that finds every queue empty
    expect(sqlite).toEqual(memory);
    expect(postgres).toEqual(memory);
  });
});
