import type { HoldKind } from './failure-rule.js';
/**
 * The hosts a run does not ask now, each with why and until when (pure, in memory, one run). A
 * hold is per origin (scheme, host and port: what robots.txt and a certificate are per), never
 * per site: a site's other hosts go on while one of them fails, and the held origin's queued pages
 * wait. Which failure holds an origin is net/failure-rule.ts's; the crawl loop (crawl/crawler.ts)
 * says for how long. (A host that backs off after a failure is the gate's: net/host-gate.ts.)
 */

export interface HostHold {
  kind: HoldKind;
  /** when the host may be asked again in this run (epoch ms); Infinity: not in this run */
  until: number;
  /** when its pages are due again (epoch ms): the next try, or, held for the run, the server's word or a later run */
  retryAt: number;
  /** why, in a few words (`robots.txt HTTP 502`, `certificate not trusted: self-signed certificate in chain`) */
  cause: string;
}

export class HostHolds {
  private holds = new Map<string, HostHold>();

  /**
   * laterMs: how far a page of a host held for the run is put off, past anything the run waits
   * for (max-backoff), so that it is left to the next run (which makes every page due again).
   */
  constructor(private laterMs: number) {}

  /** Hold a host; a hold for the run is never shortened by a shorter one. */
  hold(host: string, h: HostHold): void {
    const was = this.holds.get(host);
    if (was && was.until === Infinity && h.until !== Infinity) return;
    this.holds.set(host, h);
  }

  /** The host answered: a hold that runs out anyway ends now (a hold for the run stays). */
  release(host: string): void {
    if (this.holds.get(host)?.until !== Infinity) this.holds.delete(host);
  }

  /** The host's hold now; one that ran out is dropped. */
  of(host: string, now: number): HostHold | null {
    const h = this.holds.get(host);
    if (h === undefined) return null;
    if (h.until > now) return h;
    this.holds.delete(host);
    return null;
  }

  /** When a page of a held host is due again, or null when the host is not held. */
  retryAt(host: string, now: number): number | null {
    const h = this.of(host, now);
    if (h === null) return null;
    return h.until === Infinity ? Math.max(h.retryAt, now + this.laterMs) : Math.max(h.retryAt, now + 1);
  }

  /** Every hold still in force, by host. */
  all(now: number): Map<string, HostHold> {
    for (const host of [...this.holds.keys()]) this.of(host, now);
    return new Map(this.holds);
  }
}
