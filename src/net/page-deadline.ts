/**
 * A page's time: `ms` of its own, not counting the time the process spent blocked elsewhere
 * (`waited`: the database calls, db-wait.ts). The store's calls are synchronous, so a paused
 * database server stops the event loop, and a plain timer would fire the moment it resumes and
 * blame the page for the database's wait. When the timer fires, the wait since the start is owed
 * to the page and the timer is set again for it; the deadline passes only when nothing is owed.
 */
export class PageDeadline {
  readonly signal: AbortSignal;
  private controller = new AbortController();
  private timer: NodeJS.Timeout;
  private credited: number;

  constructor(ms: number, private waited: () => number) {
    this.signal = this.controller.signal;
    this.credited = waited();
    // Not AbortSignal.timeout(): inside AbortSignal.any() Node 20 may garbage-collect it before it
    // fires (nodejs/node#57736), and a page trickling a byte a second then never times out.
    // The timer holds this controller, so the deadline holds.
    this.timer = setTimeout(this.fire, ms);
  }

  private fire = (): void => {
    const owed = owedMs(this.credited, this.waited());
    this.credited += owed;
    if (owed > 0) this.timer = setTimeout(this.fire, owed);
    else this.controller.abort(new DOMException('page timeout', 'TimeoutError'));
  };

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** The blocked time a deadline still owes its page: what was waited since it last credited (whole ms). */
export function owedMs(credited: number, waitedNow: number): number {
  return Math.max(0, Math.round(waitedNow - credited));
}
