/** An item a PageHeap holds: its place in the heap's array (-1: not in a heap). */
export interface HeapItem {
  pos: number;
}

/**
 * A binary heap of queued pages whose keys change while they wait (a re-score, a nearer level):
 * each item knows its place, so taking one out or moving it costs O(log n), not a scan.
 * `before(a, b)`: a comes out before b.
 */
export class PageHeap<T extends HeapItem> {
  private a: T[] = [];

  constructor(private before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.a.length;
  }

  peek(): T | undefined {
    return this.a[0];
  }

  push(x: T): void {
    x.pos = this.a.length;
    this.a.push(x);
    this.up(x.pos);
  }

  /** Take x out (it must be in this heap). */
  remove(x: T): void {
    const i = x.pos;
    const last = this.a.pop()!;
    x.pos = -1;
    if (last === x) return;
    this.a[i] = last;
    last.pos = i;
    this.moved(last);
  }

  /** x's key changed: put it back in order. */
  moved(x: T): void {
    this.up(x.pos);
    this.down(x.pos);
  }

  private up(i: number): void {
    const a = this.a;
    const x = a[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(x, a[p]!)) break;
      a[i] = a[p]!;
      a[i]!.pos = i;
      i = p;
    }
    a[i] = x;
    x.pos = i;
  }

  private down(i: number): void {
    const a = this.a;
    const x = a[i]!;
    const n = a.length;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.before(a[c + 1]!, a[c]!)) c++;
      if (!this.before(a[c]!, x)) break;
      a[i] = a[c]!;
      a[i]!.pos = i;
      i = c;
    }
    a[i] = x;
    x.pos = i;
  }
}
