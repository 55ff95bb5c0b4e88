import { failingWait, failureCause, patienceMs, waitedOut, type WaitState } from '../net/waiting.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import type { Settings } from '../store/settings.js';
import type { Clock } from '../time/clock.js';
import type { PageChecker, Unreached } from './page-check.js';

/** What a re-checking run's end says of the failures for now it met. */
export interface FailuresForNow {
  /** checks that reached their server */
  reached: number;
  /** checks that failed for now before any server answered (none of them recorded) */
  attempts: number;
  /** the last of them: its cause in a few words (net/waiting.ts failureCause), and `url: error` */
  cause: string | null;
  lastFailure: string | null;
  /** pages (hubs) still put off at the end, unchecked, and their sites */
  pages: number;
  sites: number;
}

/**
 * The pages of a re-checking run (a refresh, a watch) whose check failed for now while no server
 * had answered (page-check.ts Unreached): the crawl's waiting rules (net/waiting.ts) for a run that
 * checks one page at a time. Such a page is put off until its host may be asked again and the run
 * goes on with others; when only those are left, the run waits for the earliest, saying why and
 * until when. It gives up once nothing has answered for its patience (the retry span from its
 * start, max-backoff after its last answer), the pages put off left unchecked for the next run.
 */
export class FailingForNow<P extends FrontierPage> {
  private putOff = new Map<number, { page: P; at: number }>();
  private attempts = 0;
  private cause: string | null = null;
  private lastFailure: string | null = null;

  constructor(
    private checker: Pick<PageChecker, 'reached' | 'lastReachedAt'>,
    private o: { settings: Settings; proxy: string | null; clock: Clock; onWait?: (w: WaitState) => void },
  ) {}

  /** A check of `page` failed for now: tried again from u.retryAt. */
  put(page: P, u: Unreached): void {
    this.putOff.set(page.id, { page, at: u.retryAt });
    this.attempts++;
    this.cause = failureCause(u.error, u.httpStatus, this.o.proxy);
    this.lastFailure = `${page.url}: ${u.error ?? `HTTP ${u.httpStatus}`}`;
  }

  /**
   * The next page to check: one put off whose time has come, else `fresh()` (the run's next page);
   * when there is neither, it waits for the first put off. undefined: nothing is left to check;
   * 'waited-out': the run gives up (waitedOut); 'stopped': `signal` stopped the run.
   */
  async next(fresh: () => P | undefined, signal: AbortSignal): Promise<P | 'waited-out' | 'stopped' | undefined> {
    for (;;) {
      if (signal.aborted) return 'stopped';
      if (this.waitedOut()) return 'waited-out';
      const page = this.due() ?? fresh();
      if (page || this.putOff.size === 0) return page;
      try {
        await this.wait(signal);
      } catch {
        return 'stopped';
      }
    }
  }

  /** A page put off whose host may be asked again now, the earliest first; taken off the list. */
  due(): P | undefined {
    const first = this.earliest();
    if (!first || first.at > this.o.clock.now()) return undefined;
    this.putOff.delete(first.page.id);
    return first.page;
  }

  get size(): number {
    return this.putOff.size;
  }

  /** The pages put off. */
  ids(): number[] {
    return [...this.putOff.keys()];
  }

  /** When the first page put off may be tried again (epoch ms); null: none is. */
  nextTry(): number | null {
    return this.earliest()?.at ?? null;
  }

  /** Pages are put off, and nothing answered for the run's patience: it gives up. */
  waitedOut(): boolean {
    return this.putOff.size > 0 && waitedOut(this.o.clock.now(), this.checker.lastReachedAt, this.patience());
  }

  /**
   * Wait, saying why, until the next try (`nextTry`, epoch ms; default the earliest page put off)
   * or the time the run gives up, whichever comes first. Throws when `signal` stops the run.
   */
  async wait(signal: AbortSignal, nextTry = this.nextTry() ?? Infinity): Promise<void> {
    const now = this.o.clock.now();
    const soonest = Number.isFinite(nextTry) ? Math.max(0, nextTry - now) : null;
    const w = failingWait({ sites: this.sites(), soonest }, 0, this.cause, this.checker.lastReachedAt + this.patience(), soonest, now);
    this.o.onWait?.(w.state);
    await this.o.clock.sleep(w.sleepMs, signal);
  }

  summary(): FailuresForNow {
    return { reached: this.checker.reached, attempts: this.attempts, cause: this.cause, lastFailure: this.lastFailure, pages: this.putOff.size, sites: this.sites() };
  }

  private sites(): number {
    return new Set([...this.putOff.values()].map((x) => x.page.siteId)).size;
  }

  private patience(): number {
    const s = this.o.settings;
    return patienceMs(this.checker.reached > 0, s['max-backoff'], s['retry-span']);
  }

  private earliest(): { page: P; at: number } | undefined {
    let first: { page: P; at: number } | undefined;
    for (const x of this.putOff.values()) if (!first || x.at < first.at) first = x;
    return first;
  }
}
