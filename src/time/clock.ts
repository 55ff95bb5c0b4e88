/**
 * Where the time comes from. The crawler reads the real clock; the changing web's benches and
 * tests (fixtures/changing-web) run refresh and watch on a virtual one, so that weeks of
 * simulated time take minutes while every page still goes through the real fetch path.
 */
export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
  /** Wait `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A clock that moves only when told: sleeping advances it at once. */
export class VirtualClock implements Clock {
  constructor(private t: number) {}

  now(): number {
    return this.t;
  }

  set(t: number): void {
    if (t < this.t) throw new Error(`the virtual clock cannot go back (${new Date(t).toISOString()} < ${new Date(this.t).toISOString()})`);
    this.t = t;
  }

  advance(ms: number): void {
    this.set(this.t + ms);
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.advance(Math.max(0, ms));
  }
}
