import { setTimeout as sleep } from 'node:timers/promises';
import { backoffMs } from './failure-rule.js';

export interface GateOptions {
  /** ms between the end of one request and the start of the next, per host. */
  delayMs: number;
  /** Upper bound of the error back-off and of a server's Retry-After we honour, ms. */
  maxBackoffMs: number;
}

/** What `status` shows about one host. */
export interface HostState {
  host: string;
  delayMs: number;
  failures: number;
  pausedUntil: number | null;
}

/**
 * Per-host politeness: at most one request at a time to a host; at least the host's delay
 * between the end of one request and the start of the next (the crawl's delay, or a longer
 * Crawl-delay the site asked for); a pause a server asked for (Retry-After); and exponential
 * back-off while a host keeps failing.
 */
export class HostGate {
  private tail = new Map<string, Promise<void>>();
  private nextAt = new Map<string, number>();
  private delays = new Map<string, number>();
  private failures = new Map<string, number>();
  /** host → when its server said it may be asked again, past what a run waits (epoch ms) */
  private closed = new Map<string, number>();

  constructor(private o: GateOptions) {}

  /** A host's own delay, e.g. from robots.txt Crawl-delay (never below the crawl's). */
  setDelay(host: string, ms: number): void {
    this.delays.set(host, Math.max(this.o.delayMs, ms));
  }

  delayOf(host: string): number {
    return this.delays.get(host) ?? this.o.delayMs;
  }

  /**
   * Hold every request to host until `ms` from now (capped), e.g. for Retry-After. A server that
   * asks for longer than the cap is not asked again in this run (closedUntil).
   */
  pause(host: string, ms: number): void {
    if (ms > this.o.maxBackoffMs) this.closed.set(host, Math.max(this.closed.get(host) ?? 0, Date.now() + ms));
    const until = Date.now() + Math.min(ms, this.o.maxBackoffMs);
    this.nextAt.set(host, Math.max(this.nextAt.get(host) ?? 0, until));
  }

  /** A request to host failed (network error, 5xx, 429): back off 2^n times the delay. Returns the pause, ms. */
  failed(host: string): number {
    const n = (this.failures.get(host) ?? 0) + 1;
    this.failures.set(host, n);
    const ms = backoffMs(n, this.delayOf(host), null, this.o.maxBackoffMs);
    this.pause(host, ms);
    return ms;
  }

  /** When a host that asked for a pause longer than max-backoff may be asked again (epoch ms); null: it did not. */
  closedUntil(host: string): number | null {
    const at = this.closed.get(host);
    return at === undefined || at <= Date.now() ? null : at;
  }

  succeeded(host: string): void {
    this.failures.delete(host);
  }

  /** Milliseconds until a request to host may start (0 when it may now; busy hosts count as ready). */
  waitMs(host: string): number {
    return Math.max(0, (this.nextAt.get(host) ?? 0) - Date.now());
  }

  state(host: string): HostState {
    const until = this.nextAt.get(host) ?? 0;
    return { host, delayMs: this.delayOf(host), failures: this.failures.get(host) ?? 0, pausedUntil: until > Date.now() + this.delayOf(host) ? until : null };
  }

  async run<T>(host: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const before = this.tail.get(host) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    this.tail.set(host, mine);
    try {
      await before;
      const wait = this.waitMs(host);
      if (wait > 0) await sleep(wait, undefined, { signal });
      return await fn();
    } finally {
      this.nextAt.set(host, Math.max(this.nextAt.get(host) ?? 0, Date.now() + this.delayOf(host)));
      release();
      if (this.tail.get(host) === mine) this.tail.delete(host);
    }
  }
}
