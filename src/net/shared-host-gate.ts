import { setTimeout as sleep } from 'node:timers/promises';
import { HostGate, type GateOptions } from './host-gate.js';

/** The request never started: its page's time ran out while another worker held the host (a killed one holds it for holdMs). */
export class HostBusy extends Error {
  constructor(host: string) {
    super(`${host} is held by another worker`);
    this.name = 'HostBusy';
  }
}

/** Hosts held across the workers of a shared crawl, in the database (store/shared-crawl.ts). */
export interface SharedHosts {
  /** Take the host for one request (held at most holdMs): 0, or the ms to wait before asking again. */
  acquireHost(host: string, holdMs: number): number;
  /** The request ended: the host is free again after its delay. */
  releaseHost(host: string, delayMs: number): void;
}

/**
 * HostGate for a crawl shared by several workers (PostgreSQL): inside this process's own gate
 * (one request at a time, back-off, Retry-After), each request also takes the host in the
 * database, and frees it when it ends with the host's delay. So across all workers there is one
 * request at a time per host, at least the delay apart, as in one process. A worker killed during
 * a request holds the host until `holdMs` runs out.
 */
export class SharedHostGate extends HostGate {
  constructor(o: GateOptions, private shared: SharedHosts, private holdMs: number) {
    super(o);
  }

  override async run<T>(host: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    return super.run(host, signal, async () => {
      // Past the host's delay, the slot is held by a request in progress: ask again soon, it frees at its end.
      const poll = Math.max(25, this.delayOf(host));
      for (let wait; (wait = this.shared.acquireHost(host, this.holdMs)) > 0; ) {
        await sleep(Math.min(wait, poll), undefined, { signal }).catch((err: unknown) => {
          throw signal.aborted ? new HostBusy(host) : err;
        });
      }
      try {
        return await fn();
      } finally {
        this.shared.releaseHost(host, this.delayOf(host));
      }
    });
  }
}
