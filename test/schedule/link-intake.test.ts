import { describe, expect, it } from 'vitest';
import { takeLinks, type IntakeStore, type OrderedPull, type Scored } from '../../src/schedule/link-intake.js';
import type { LinkOrder, OrderedLink } from '../../src/schedule/link-order.js';
import type { Rescore } from '../../src/schedule/links/rescore.js';
import type { FrontierPage, OrderState } from '../../src/schedule/queued-page.js';

interface Link {
  key: string;
  anchor: string;
  hold?: string;
}
interface Page {
  key: string;
  level: number;
  queued: boolean;
  state: OrderState;
}

const state = (cash: number): OrderState => ({ cues: '', cash, inherit: 0, dist: 0, inlinks: 1 });

/** A store in plain data: its pages by key, and the log of what the walk told it, in order. */
class Pages implements IntakeStore<Link, string, Page, string> {
  pages = new Map<string, Page>();
  log: string[] = [];
  /** keys the query-variant trap holds */
  traps = new Set<string>();
  queuedAsked: number[] = [];

  constructor(pages: Page[] = []) {
    for (const p of pages) this.pages.set(p.key, p);
  }

  keyOf = (l: Link) => l.key;
  heldBy = (l: Link) => l.hold;
  find = (_c: string, l: Link, withState: boolean) => {
    this.log.push(`find ${l.key}${withState ? ' with state' : ''}`);
    return this.pages.get(l.key);
  };
  levelOf = (p: Page) => p.level;
  queued = (p: Page) => p.queued;
  edge = (c: string, p: Page, l: Link) => void this.log.push(`edge ${c}->${p.key} ${l.anchor}`);
  lower = (_c: string, p: Page, level: number) => {
    this.log.push(`lower ${p.key} ${level}`);
    p.level = level;
  };
  nearer = (_c: string, p: Page, level: number) => void this.log.push(`nearer ${p.key} ${level}`);
  trap = (_c: string, l: Link) => {
    this.log.push(`trap? ${l.key}`);
    return this.traps.has(l.key) ? 'query-variants' : undefined;
  };
  hold = (_c: string, l: Link, hold: string, level: number) => {
    this.log.push(`hold ${l.key} ${hold} ${level}`);
    this.pages.set(l.key, { key: l.key, level, queued: false, state: state(0) });
  };
  insert = (_c: string, l: Link, level: number, scored: Scored | null) => {
    this.log.push(`insert ${l.key} ${level}${scored ? ` priority ${scored.priority}` : ''}`);
    this.pages.set(l.key, { key: l.key, level, queued: true, state: scored?.state ?? state(0) });
  };
  asked = (_c: string, l: Link, p: Page | undefined): OrderedLink => ({ url: `http://s.example/${l.key}`, anchor: l.anchor, cues: undefined, known: p ? p.state : null });
  update = (_c: string, p: Page, level: number, scored: Scored) => {
    this.log.push(`update ${p.key} ${level} priority ${scored.priority}`);
    p.level = Math.min(p.level, level);
    p.state = scored.state;
  };
  queuedPages = (_c: string, atMost: number) => {
    this.queuedAsked.push(atMost);
    return Math.min([...this.pages.values()].filter((p) => p.queued).length, atMost);
  };
  rescore = (c: string, _prioritize: unknown, which: Rescore) => void this.log.push(`rescore ${c} ${JSON.stringify(which)}`);
}

/**
 * An order in plain data: each link's priority is its anchor's length, a known page's cash grows
 * by one; what it heard goes to the store's log, so the sequence of the two is one list.
 */
function order(log: string[], tracksKnown: boolean, rescore: Rescore | null = null): LinkOrder {
  return {
    tracksKnown,
    learn: (page, reward) => {
      log.push(`learn ${page.url} ${reward}`);
      return 0.5;
    },
    children: (_page, _reward, relevance, links) => {
      log.push(`children ${relevance} ${links.map((l) => `${l.url.slice(17)}${l.known ? `(cash ${l.known.cash})` : ''}`).join(' ')}`);
      return links.map((l) => ({ state: state((l.known?.cash ?? 0) + 1), priority: l.anchor.length }));
    },
    rescoreAfter: (_page, reward, queued) => {
      log.push(`rescoreAfter ${reward} queued ${queued(10)}`);
      return rescore;
    },
    prioritize: () => 0,
  };
}

const pulled: FrontierPage = { id: 1, siteId: 1, url: 'http://s.example/', level: 2 };
const pull = (o: LinkOrder): OrderedPull => ({ order: o, page: pulled, reward: 3, terms: undefined });

describe('takeLinks, a page at level 2', () => {
  it('unordered: a new page is queued one level down; a held link and a trapped key are stored held', () => {
    const s = new Pages();
    s.traps.add('q?b');
    expect(takeLinks(s, 'home', [{ key: 'a', anchor: 'A' }, { key: 'f.pdf', anchor: '', hold: 'file' }, { key: 'q?b', anchor: 'Q' }], 2, null)).toBeNull();
    expect(s.log).toEqual(['find a', 'trap? a', 'insert a 3', 'find f.pdf', 'hold f.pdf file 3', 'find q?b', 'trap? q?b', 'hold q?b query-variants 3']);
  });

  it('unordered: a known page found nearer moves up, queued or fetched; one found no nearer, or by a held link, gets its edge alone', () => {
    const s = new Pages([
      { key: 'queued', level: 5, queued: true, state: state(0) },
      { key: 'done', level: 4, queued: false, state: state(0) },
      { key: 'near', level: 3, queued: true, state: state(0) },
      { key: 'held', level: 6, queued: true, state: state(0) },
    ]);
    takeLinks(s, 'home', [{ key: 'queued', anchor: 'Q' }, { key: 'done', anchor: 'D' }, { key: 'near', anchor: 'N' }, { key: 'held', anchor: 'H', hold: 'trap' }], 2, null);
    expect(s.log.filter((l) => !l.startsWith('find'))).toEqual([
      'edge home->queued Q', 'lower queued 3', 'edge home->done D', 'lower done 3', 'edge home->near N', 'edge home->held H',
    ]);
  });

  it('ordered: the order learns the pull, scores the new targets together, then they are stored; the queue is re-scored when the order asks', () => {
    const s = new Pages([{ key: 'old', level: 1, queued: false, state: state(0) }]);
    const o = order(s.log, false, { cues: ['u:x'] });
    expect(takeLinks(s, 'home', [{ key: 'a', anchor: 'AA' }, { key: 'old', anchor: 'O' }, { key: 'b', anchor: 'B' }], 2, pull(o))).toBe(0.5);
    expect(s.log).toEqual([
      'learn http://s.example/ 3',
      'find a', 'trap? a', 'find old', 'edge home->old O', 'find b', 'trap? b',
      'children 0.5 a b',
      'insert a 3 priority 2', 'insert b 3 priority 1',
      'rescoreAfter 3 queued 2',
      'rescore home {"cues":["u:x"]}',
    ]);
    expect(s.queuedAsked).toEqual([10]);
  });

  it('ordered: no re-scoring when the order asks none', () => {
    const s = new Pages();
    takeLinks(s, 'home', [{ key: 'a', anchor: 'A' }], 2, pull(order(s.log, true, null)));
    expect(s.log.at(-1)).toBe('rescoreAfter 3 queued 1');
  });

  it('a queued page found nearer: an order that does not track known pages keeps its nearer level beside it and does not score it', () => {
    const s = new Pages([{ key: 'q', level: 6, queued: true, state: state(2) }]);
    takeLinks(s, 'home', [{ key: 'q', anchor: 'Q' }], 2, pull(order(s.log, false)));
    expect(s.log.filter((l) => !l.startsWith('learn') && !l.startsWith('rescoreAfter'))).toEqual(['find q', 'edge home->q Q', 'nearer q 3', 'children 0.5 ']);
  });

  it('a queued page found nearer: an order that tracks known pages scores it with its state and updates it at the nearer level', () => {
    const s = new Pages([{ key: 'q', level: 6, queued: true, state: state(2) }]);
    takeLinks(s, 'home', [{ key: 'q', anchor: 'Q' }], 2, pull(order(s.log, true)));
    expect(s.log.filter((l) => !l.startsWith('learn') && !l.startsWith('rescoreAfter'))).toEqual([
      'find q with state', 'edge home->q Q', 'children 0.5 q(cash 2)', 'update q 3 priority 1',
    ]);
    expect(s.pages.get('q')).toMatchObject({ level: 3, state: { cash: 3 } });
  });

  it('a fetched page found nearer is lowered, and not scored; a held link to a queued page neither scores nor moves it', () => {
    const s = new Pages([
      { key: 'done', level: 5, queued: false, state: state(0) },
      { key: 'deep', level: 6, queued: true, state: state(1) },
    ]);
    takeLinks(s, 'home', [{ key: 'done', anchor: 'D' }, { key: 'deep', anchor: 'X', hold: 'trap' }], 2, pull(order(s.log, true)));
    expect(s.log.filter((l) => !l.startsWith('learn') && !l.startsWith('rescoreAfter'))).toEqual([
      'find done with state', 'edge home->done D', 'lower done 3', 'find deep with state', 'edge home->deep X', 'children 0.5 ',
    ]);
  });

  it('under the value order a fetched page found nearer goes to nearer too (the store moves a fetched one up)', () => {
    const s = new Pages([{ key: 'done', level: 5, queued: false, state: state(0) }]);
    takeLinks(s, 'home', [{ key: 'done', anchor: 'D' }], 2, pull(order(s.log, false)));
    expect(s.log).toContain('nearer done 3');
    expect(s.log.some((l) => l.startsWith('lower'))).toBe(false);
  });

  it('a held query variant: the trap is asked of new keys alone, and a held page is not scored', () => {
    const s = new Pages([{ key: 'p?x', level: 3, queued: true, state: state(0) }]);
    s.traps.add('p?z');
    takeLinks(s, 'home', [{ key: 'p?x', anchor: 'X' }, { key: 'p?y', anchor: 'Y' }, { key: 'p?z', anchor: 'Z' }], 2, pull(order(s.log, false)));
    expect(s.log.filter((l) => !l.startsWith('learn') && !l.startsWith('rescoreAfter'))).toEqual([
      'find p?x', 'edge home->p?x X', 'find p?y', 'trap? p?y', 'find p?z', 'trap? p?z', 'hold p?z query-variants 3', 'children 0.5 p?y', 'insert p?y 3 priority 1',
    ]);
  });

  it('a key twice in one page: ordered, one target and one edge, the first link deciding; unordered, the second link finds the page stored', () => {
    const links = [{ key: 'a', anchor: 'first' }, { key: 'k', anchor: 'K1' }, { key: 'a', anchor: 'second' }, { key: 'k', anchor: 'K2' }];
    const ordered = new Pages([{ key: 'k', level: 3, queued: true, state: state(0) }]);
    takeLinks(ordered, 'home', links, 2, pull(order(ordered.log, true)));
    expect(ordered.log.filter((l) => !l.startsWith('learn') && !l.startsWith('rescoreAfter'))).toEqual([
      'find a with state', 'trap? a', 'find k with state', 'edge home->k K1', 'children 0.5 a k(cash 0)', 'insert a 3 priority 5', 'update k 3 priority 2',
    ]);
    const unordered = new Pages([{ key: 'k', level: 3, queued: true, state: state(0) }]);
    takeLinks(unordered, 'home', links, 2, null);
    expect(unordered.log).toEqual(['find a', 'trap? a', 'insert a 3', 'find k', 'edge home->k K1', 'find a', 'edge home->a second', 'find k', 'edge home->k K2']);
  });
});
