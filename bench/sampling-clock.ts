/**
 * A virtual clock that measures while it sleeps (bench:refresh). `beebot refresh` checks its pages
 * at one virtual instant and then sleeps until the next iteration; this clock steps through that
 * sleep and calls `sample(t)` at every multiple of `stepMs` from `origin`, so the index is measured
 * as it stands between checks: a sample at t sees every check made at or before t.
 */
import { VirtualClock, type Clock } from '../src/time/clock.js';

export class SamplingClock implements Clock {
  private clock: VirtualClock;
  /** the next sample time */
  private due: number;

  constructor(private origin: number, private stepMs: number, private sample: (t: number) => void) {
    this.clock = new VirtualClock(origin);
    this.due = origin;
  }

  now(): number {
    return this.clock.now();
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.until(this.clock.now() + Math.max(0, ms));
  }

  /** Move to `end`, sampling at every due time before it (not at `end`: what happens there comes first). */
  until(end: number): void {
    while (this.due < end) {
      if (this.due > this.clock.now()) this.clock.set(this.due);
      this.sample(this.due);
      this.due += this.stepMs;
    }
    this.clock.set(Math.max(end, this.clock.now()));
  }
}

/** A clock that reads whichever clock is current: one server serves each configuration's run in turn. */
export class SwitchClock implements Clock {
  constructor(public current: Clock) {}

  now(): number {
    return this.current.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.current.sleep(ms, signal);
  }
}
