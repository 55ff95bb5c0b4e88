import { Worker } from 'node:worker_threads';

/**
 * A PostgreSQL server frozen for good (SIGSTOP, a hung disk) holds libpq's synchronous calls with
 * no time limit: its kernel still acknowledges, so no TCP timeout notices, and the thread blocked
 * in the call cannot act. A second thread (frozen-watcher.ts) watches the call in progress: once
 * one has lasted half the limit (db-reconnect), it asks the server on a connection of its own; a
 * server that does not answer that either within the other half is frozen, and the watcher writes
 * one line naming it and ends the process with SIGKILL, exit status 137: nothing else stops a
 * thread blocked in C. A long query on a live server answers the probe and is left alone. A
 * healthy crawl pays two writes to shared memory per call and two wake-ups of that thread a second.
 */
export class FrozenWatch {
  /** [when the call in progress began (epoch ms; 0: none), the limit (ms; 0: not watched)] */
  private state = new Float64Array(new SharedArrayBuffer(16));
  private worker: Worker | null = null;

  constructor(
    private name: string,
    private url: string,
  ) {}

  /** Watch calls from now on, ending the process when the server stays frozen for `ms`; 0 stops watching. */
  set limitMs(ms: number) {
    this.state[1] = ms;
    if (ms > 0 && this.worker === null) {
      // execArgv: none of the process's own flags (--input-type, --eval) apply to the watcher's file
      this.worker = new Worker(new URL('./frozen-watcher.js', import.meta.url), { workerData: { state: this.state, url: this.url, name: this.name }, execArgv: [] });
      this.worker.on('error', () => (this.worker = null)); // a watcher that fails leaves the crawl as it was without one
      this.worker.unref();
    }
  }

  begin(): void {
    this.state[0] = Date.now();
  }

  end(): void {
    this.state[0] = 0;
  }

  stop(): void {
    this.state[1] = 0;
    void this.worker?.terminate();
    this.worker = null;
  }
}
