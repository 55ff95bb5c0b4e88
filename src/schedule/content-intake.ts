/**
 * Which page a pull's content is stored on, and at what level, decided once for the live store
 * (store/pull-writer.ts) and the offline replay (replay/replay-store.ts): the level the pulled
 * page's links are found one below.
 */

/**
 * What the step reads of a store and tells it, for one pull `c` (whatever the store needs to
 * write it: the pulled page, the read, its status). `P` is a stored page as the store hands it
 * back. The store decides nothing.
 */
export interface ContentStore<P, C> {
  /**
   * The in-site page the pull was redirected to, found or new (then stored at `level`, found on
   * the pulled page); undefined when the content is the pulled page's own.
   */
  target(c: C, level: number): P | undefined;
  levelOf(c: C, p: P): number;
  /** The pulled page redirected to `target`: it is stored so, linking it. */
  redirected(c: C, target: P): void;
  /** `target` found at `level`, nearer than it is: it moves up (and a fetched page what it links). */
  lower(c: C, target: P, level: number): void;
  /** The content stored with the pull's status on `p` (undefined: the pulled page), at `level`. */
  content(c: C, p: P | undefined, level: number): void;
}

/**
 * The content of a pull at `level`: an in-site redirect's belongs to its target, stored whatever
 * the target's state (queued, fetched or new), at the nearer of the two levels. Returns that level.
 */
export function takeContent<P, C>(store: ContentStore<P, C>, c: C, level: number): number {
  const target = store.target(c, level);
  if (target === undefined) {
    store.content(c, undefined, level);
    return level;
  }
  const at = store.levelOf(c, target);
  store.redirected(c, target);
  if (at > level) store.lower(c, target, level);
  const nearer = Math.min(at, level);
  store.content(c, target, nearer);
  return nearer;
}
