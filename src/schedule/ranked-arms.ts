import type { Arm } from './sites/policy.js';
import { ranksBefore } from './sites/pages.js';
import { PageHeap } from './page-heap.js';

interface Entry {
  arm: Arm;
  /** the next page's priority, for an arm whose worth moves (read at each pick) */
  priority: number;
  moving: boolean;
  /** its place in the heap of fixed worths (-1: not there) */
  pos: number;
}

const byRank = (x: Entry, y: Entry) => ranksBefore(x.arm.next ?? 0, x.arm, y.arm.next ?? 0, y.arm);

/**
 * The open arms in the pages policy's rank (sites/pages.ts), so that a pick among 30,000 sites
 * does not read them all. An arm whose worth is fixed until its site changes (a start page, any
 * page of an order whose values do not move) waits in a heap, keyed by its Arm.next, pulls and id;
 * one whose worth moves with what the crawl learns (--order value: the site's index moves with
 * the crawl's mean) is valued at the pick, unless a bound on every such worth (the ceiling) is
 * below the heap's first: then none of them can come first. The first arm is the one the
 * policy's pass over all the arms picks: the rank is a total order.
 * The caller tells it of every change to an arm (set, drop); Arm.next of a moving arm is not read.
 */
export class RankedArms {
  private entries = new Map<number, Entry>();
  private fixed = new PageHeap<Entry>(byRank);
  private moving = new Set<Entry>();
  /** the largest priority of a moving arm since clear(): the ceiling's argument (a bound may only be loose) */
  private movingMax = 0;

  /** The arm is open: its worth is its Arm.next (fixed) or moves with its page's `priority` (moving). */
  set(arm: Arm, moving: boolean, priority = 0): void {
    let e = this.entries.get(arm.id);
    if (e && e.moving !== moving) {
      this.drop(arm.id);
      e = undefined;
    }
    if (!e) {
      e = { arm, priority, moving, pos: -1 };
      this.entries.set(arm.id, e);
      if (moving) this.moving.add(e);
      else this.fixed.push(e);
    } else {
      e.arm = arm;
      if (!moving) this.fixed.moved(e);
    }
    if (moving) {
      e.priority = priority;
      this.movingMax = Math.max(this.movingMax, priority);
    }
  }

  /** The arm is not open. */
  drop(id: number): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    if (e.moving) this.moving.delete(e);
    else this.fixed.remove(e);
  }

  clear(): void {
    this.entries.clear();
    this.fixed = new PageHeap<Entry>(byRank);
    this.moving.clear();
    this.movingMax = 0;
  }

  /**
   * The id of the open arm that ranks first, or null when none is open. worth(id, priority): a
   * moving arm's worth now; ceiling(p): a bound on worth(id, q) for every site and every q <= p.
   */
  first(worth: (id: number, priority: number) => number, ceiling: (priority: number) => number): number | null {
    let best = this.fixed.peek()?.arm;
    let bestWorth = best?.next ?? 0;
    if (this.moving.size > 0 && !(best && bestWorth > ceiling(this.movingMax))) {
      for (const { arm, priority } of this.moving) {
        const v = worth(arm.id, priority);
        if (!best || ranksBefore(v, arm, bestWorth, best)) {
          best = arm;
          bestWorth = v;
        }
      }
    }
    return best?.id ?? null;
  }
}
