import { describe, expect, it } from 'vitest';
import { MemoryFrontier } from '../../src/schedule/memory-frontier.js';
import { START } from '../../src/schedule/links/priority.js';
import type { OrderState } from '../../src/schedule/queued-page.js';

const S = 1;
const page = (id: number, level: number, extra: object = {}) => ({ id, siteId: S, url: `https://a.example/p${id}`, level, ...extra });
const ids = (f: MemoryFrontier, now?: number): number[] => {
  const out: number[] = [];
  for (let p; (p = f.nextPage(S, now)); ) out.push(f.take(p.id) === undefined ? -1 : p.id);
  return out;
};
const state: OrderState = { cues: 'u:a', cash: 0.5, inherit: 0, dist: 1, inlinks: 2 };

describe('MemoryFrontier', () => {
  it('breadth-first: lowest level first, then discovery order; beyond max-level waits until a link brings it within', () => {
    const f = new MemoryFrontier(false, 2);
    for (const [id, level] of [[5, 2], [3, 1], [4, 1], [1, 0], [2, 3], [6, 3]] as const) f.add(page(id, level));
    f.raise(6, 2);
    f.raise(4, 0);
    expect(ids(f)).toEqual([1, 4, 3, 5, 6]);
    expect(f.queued(S)).toBe(1);
    expect(f.nextPage(S)).toBeUndefined();
  });

  it('ordered: priority first, then the level it was queued with, then id; unscored pages wait for a score', () => {
    const f = new MemoryFrontier(true, 5);
    f.add(page(1, 2, { priority: 3 }));
    f.add(page(2, 1, { priority: 3 }));
    f.add(page(3, 1, { priority: 3 }));
    f.add(page(4, 1, { priority: 7, anchor: 'x', cues: 'u:a', cash: 0.25 }));
    f.add(page(5, 1));
    expect(f.nextPage(S)).toEqual({ id: 4, siteId: S, url: 'https://a.example/p4', level: 1, priority: 7, anchor: 'x', state: { cues: 'u:a', cash: 0.25, inherit: 0, dist: 0, inlinks: 0 } });
    expect(ids(f)).toEqual([4, 2, 3, 1]);
    f.rescore(S, () => 1, 'unscored');
    expect(ids(f)).toEqual([5]);
  });

  it('a nearer level waits beside the page: the order reads the queued level, the fetch the nearer one', () => {
    const f = new MemoryFrontier(true, 3);
    f.add(page(1, 3, { priority: 2 }));
    f.add(page(2, 2, { priority: 2 }));
    f.add(page(3, 5, { priority: 9 }));
    f.nearer(1, 1);
    f.nearer(1, 2); // farther than the nearer one kept: nothing changes
    expect(f.nextPage(S)!.id).toBe(3 - 1);
    f.nearer(3, 4); // still beyond max-level: waits beside it
    expect(f.levelOf(3)).toBe(4);
    expect(f.nextPage(S)!.id).toBe(2);
    f.nearer(3, 3); // within max-level: the page moves up at once and is eligible
    expect(f.nextPage(S)).toMatchObject({ id: 3, level: 3 });
    expect(f.take(3)).toBe(3);
    f.take(2);
    expect(f.nextPage(S)).toMatchObject({ id: 1, level: 1 });
    expect(f.take(1)).toBe(1);
    expect(f.take(1)).toBeUndefined();
  });

  it('a page that failed for now waits for its retry time, and a held origin puts off its pages there', () => {
    const f = new MemoryFrontier(false, 5);
    f.add(page(1, 1));
    f.add(page(2, 1));
    f.add({ id: 3, siteId: S, url: 'https://b.example/q', level: 1 });
    f.add({ id: 4, siteId: S, url: 'https://a.example.org/x', level: 1 });
    f.defer(1, 1, 100, 1_000);
    expect(f.nextPage(S, 500)).toMatchObject({ id: 2 });
    expect(f.soonestRetry(S)).toBe(1_000);
    f.putOff(S, 'https://a.example', 2_000); // page 1's retry moves later, page 2 waits too
    expect(f.nextPage(S, 500)!.id).toBe(3);
    f.take(3);
    expect(f.nextPage(S, 500)!.id).toBe(4); // another origin that only starts alike
    f.take(4);
    expect(f.nextPage(S, 500)).toBeUndefined();
    expect(f.soonestRetry(S)).toBe(2_000);
    expect(f.nextPage(S, 2_000)).toEqual({ id: 1, siteId: S, url: 'https://a.example/p1', level: 1, attempts: 1, firstFailedAt: 100 });
  });

  it('re-scores in memory: only the pages `which` picks, start pages first, and changes are reported', () => {
    const f = new MemoryFrontier(true, 5);
    f.add(page(1, 0, { priority: START }));
    f.add(page(2, 1, { priority: 5, cues: 'u:a t:b' }));
    f.add(page(3, 1, { priority: 1, cues: 'u:c' }));
    f.add(page(4, 1, { priority: 8, cues: 'u:a' }));
    const asked: number[] = [];
    const changed: [number, number][] = [];
    f.rescore(S, (_s, url) => (asked.push(Number(url.slice(url.lastIndexOf('p') + 1))), 10), { cues: ['u:a'], above: 6 }, (id, p) => changed.push([id, p]));
    expect(asked).toEqual([4]);
    expect(changed).toEqual([[4, 10]]);
    f.rescore(S, (_s, _u, _a, st) => (st.cues === 'u:c' ? 20 : 0), 'all');
    expect(ids(f)).toEqual([1, 3, 2, 4]);
  });

  it('an order that tracks known pages updates a queued page: its state, priority and a nearer level', () => {
    const f = new MemoryFrontier(true, 5);
    f.add(page(1, 3, { priority: 1, cues: 'u:a' }));
    f.add(page(2, 1, { priority: 2 }));
    expect(f.known(1)).toEqual({ cues: 'u:a', cash: 0, inherit: 0, dist: 0, inlinks: 0 });
    f.update(1, 4, state, 2);
    expect(f.known(1)).toEqual({ ...state, cues: 'u:a' });
    expect(f.nextPage(S)).toMatchObject({ id: 1, level: 2, priority: 4 });
  });

  it('takes pages in the same order as a scan of the whole queue, through many raises, re-scores and takes', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (const ordered of [false, true]) {
      const f = new MemoryFrontier(ordered, 4);
      const q = new Map<number, { level: number; priority: number | null }>();
      let next = 1;
      // the frontier's order by a scan: (priority desc when ordered, level, id) among eligible pages
      const key = (id: number): number[] => [ordered ? -q.get(id)!.priority! : 0, q.get(id)!.level, id];
      const less = (a: number[], b: number[]) => a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! < b[2]!)));
      const best = (): number | undefined => {
        let b: number | undefined;
        for (const [id, p] of q) {
          if (p.level > 4 || (ordered && p.priority === null)) continue;
          if (b === undefined || less(key(id), key(b))) b = id;
        }
        return b;
      };
      for (let step = 0; step < 3000; step++) {
        const r = rand(10);
        if (r < 5 || q.size === 0) {
          const p = { level: rand(7), priority: rand(4) === 0 ? null : rand(20) };
          q.set(next, p);
          f.add(page(next++, p.level, { priority: p.priority }));
        } else if (r < 7) {
          const id = [...q.keys()][rand(q.size)]!;
          const level = rand(7);
          f.raise(id, level);
          q.get(id)!.level = Math.min(q.get(id)!.level, level);
        } else if (r < 8 && ordered) {
          const bump = rand(3);
          f.rescore(S, (_s, url) => (Number(url.slice(url.lastIndexOf('p') + 1)) * 7 + bump) % 23, 'all');
          for (const [id, p] of q) if (p.priority !== null) p.priority = p.level === 0 ? START : (id * 7 + bump) % 23;
        } else {
          const want = best();
          expect(f.nextPage(S)?.id).toBe(want);
          if (want !== undefined) {
            f.take(want);
            q.delete(want);
          }
        }
      }
    }
  });
});
