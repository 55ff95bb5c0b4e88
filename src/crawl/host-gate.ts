import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Per-host politeness: at most one request at a time to a host, and at least `delayMs`
 * between the end of one request and the start of the next.
 */
export class HostGate {
  private tail = new Map<string, Promise<void>>();
  private nextAt = new Map<string, number>();

  constructor(private delayMs: number) {}

  /** Milliseconds until a request to host may start (0 when it may now; busy hosts count as ready). */
  waitMs(host: string): number {
    return Math.max(0, (this.nextAt.get(host) ?? 0) - Date.now());
  }

  async run<T>(host: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const before = this.tail.get(host) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    this.tail.set(host, mine);
    try {
      await before;
      const wait = (this.nextAt.get(host) ?? 0) - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal });
      return await fn();
    } finally {
      this.nextAt.set(host, Date.now() + this.delayMs);
      release();
      if (this.tail.get(host) === mine) this.tail.delete(host);
    }
  }
}
