import { retryWhole } from '../db/lost-connection.js';
import type { Db } from '../db/db.js';
import { PullWriter } from '../store/pull-writer.js';
import type { LinkChanges } from '../pull/pull-record.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import { lastRead } from '../store/last-read.js';
import { PolitenessWriter } from '../store/politeness.js';
import { loadParamRules } from '../store/param-rules.js';
import { siteScopes } from '../store/sites.js';
import type { RefreshLogAction } from './refresh-log.js';
import type { Settings } from '../store/settings.js';
import type { Validators } from '../net/fetch-page.js';
import { HostGate } from '../net/host-gate.js';
import { PageReader } from '../net/page-reader.js';
import { failsForNow } from '../net/failure-rule.js';
import { realClock, type Clock } from '../time/clock.js';
import { refreshAction } from './action.js';
import { changedChars, LINK_CHARS } from './content-value.js';
import { pickedFate } from '../page/link-fate.js';

/** What one re-check found. */
export interface CheckOutcome {
  action: RefreshLogAction;
  httpStatus: number | null;
  error: string | null;
  /** the validators in force for the next check */
  validators: Validators;
  /** body bytes received (0 for a 304), and the check's time */
  bytes: number;
  ms: number;
  /** characters of content changed (content-value.ts); 0: as it was */
  changed: number;
  linksAdded: number;
  linksGone: number;
  /** the page had never been read (a page a refresh found): `changed` is all it holds */
  firstRead: boolean;
  /**
   * When the request whose answer this is was sent (epoch ms; the check's start when none was):
   * the page was as answered at some time after it, so the next check's interval starts here.
   */
  sentAt: number;
}

/**
 * A check that failed for now (a network error, a timeout, a 5xx, 429 or 408, a robots.txt that
 * could not be read) in a run that has reached no server yet: nothing is written, the page stays to
 * be checked (failing-for-now.ts). When nothing answers, the network or a proxy is the likelier fault.
 */
export interface Unreached {
  unreached: true;
  /** the fetch log's `reason: detail`, or robots.txt's `robots.txt unreachable (…)` */
  error: string | null;
  httpStatus: number | null;
  /** when the page's host (or its robots.txt) may be asked again, epoch ms on the checker's clock */
  retryAt: number;
}

export interface CheckerOptions {
  settings: Settings;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  clock?: Clock;
}

/**
 * Re-checks pages one at a time with conditional requests (ETag, Last-Modified) and the crawl's
 * politeness (host delays, robots.txt), and stores what changed: a changed page's links are
 * replaced, with their history (store/pull-writer.ts); a 404/410 marks it gone. `crawl --refresh` and
 * `beebot refresh` both check pages with it. A check's outcome and what the caller logs with it
 * (`record`) are committed together, so a stopped run resumes exactly.
 */
export class PageChecker {
  readonly writer: PullWriter;
  private hostsLog: PolitenessWriter;
  private gate: HostGate;
  private before: ReturnType<typeof lastRead>;
  private clock: Clock;
  /** checks of this run that reached their server: anything but a failure for now */
  reached = 0;
  /** when the last of them ended, or the run's start: a run that waits counts from it (net/waiting.ts) */
  lastReachedAt: number;

  private constructor(db: Db, private o: CheckerOptions, gate: HostGate, private reader: PageReader) {
    const s = o.settings;
    this.clock = o.clock ?? realClock;
    this.lastReachedAt = this.clock.now();
    this.writer = new PullWriter(db, { maxQueryVariants: s['max-query-variants'], reward: s.reward, indexText: s['index-text'] === 'yes', now: () => this.clock.now() });
    this.hostsLog = new PolitenessWriter(db);
    this.gate = gate;
    this.before = lastRead(db);
  }

  static async open(db: Db, o: CheckerOptions): Promise<PageChecker> {
    const s = o.settings;
    const gate = new HostGate({ delayMs: s.delay, maxBackoffMs: s['max-backoff'] });
    const reader = await PageReader.open({ settings: s, scopes: siteScopes(db, s), params: loadParamRules(db), resolve: o.resolve, proxy: o.proxy, gate, analysers: 1, focus: false });
    return new PageChecker(db, o, gate, reader);
  }

  /**
   * Check one page: `old` are the validators of its last answer. `record` writes the caller's log
   * row, in the same transaction as what the check changed. 'aborted': the run was stopped, nothing written.
   * A failure for now is a 'retry' with its cause once some server of this run answered; before
   * that it is Unreached, nothing written. `read`, when given, sees the HTML body of an answer with
   * content and its final URL before anything is written (beebot watch reads the times shown next
   * to a hub's links in it).
   */
  async check(
    page: FrontierPage, old: Validators, signal: AbortSignal, record: (o: CheckOutcome) => void, read?: (body: Uint8Array, url: string) => void,
  ): Promise<CheckOutcome | Unreached | 'aborted'> {
    const before = this.before(page.id);
    const t0 = performance.now();
    let sentAt = this.clock.now();
    const firstRead = before.status === 'queued';
    const done = (o: Omit<CheckOutcome, 'ms' | 'firstRead' | 'sentAt'>, write: (rec: () => void) => void): CheckOutcome => {
      const out = { ...o, firstRead, sentAt, ms: Math.round(performance.now() - t0) };
      write(() => record(out));
      return out;
    };
    const plain = (rec: () => void) => retryWhole(() => this.writer.group.write(rec)); // run again whole if PostgreSQL dropped it
    const verdict = await this.reader.robots(page.url, signal);
    if (verdict === 'aborted') return 'aborted';
    const fate = pickedFate({ robots: verdict });
    if (fate) {
      return done({ action: 'skipped', httpStatus: null, error: fate.status, validators: old, bytes: 0, changed: 0, linksAdded: 0, linksGone: 0 }, plain);
    }
    if (verdict.kind === 'wait') {
      // robots.txt could not be read: disallowed for now (RFC 9309), a failure for now like the page's own
      const retryAt = this.clock.now() + Math.max(0, verdict.until - Date.now());
      if (this.reached === 0) return { unreached: true, error: verdict.reason, httpStatus: null, retryAt };
      return done({ action: 'retry', httpStatus: null, error: verdict.reason, validators: old, bytes: 0, changed: 0, linksAdded: 0, linksGone: 0 }, plain);
    }
    // Only an answer whose links a refresh replaces is analysed.
    const got = await this.reader.read(page, signal, { validators: old, analyseIf: (status) => refreshAction(status) === 'replace', onBody: read, onSend: () => (sentAt = this.clock.now()) });
    if (got === 'abandoned') return 'aborted'; // nothing written: checked again on resume
    const { fetch: f, result: r } = got;
    const host = new URL(page.url).host;
    if (got.timedOut) this.gate.failed(host);
    const hs = this.gate.state(host);
    this.hostsLog.state(host, hs.delayMs, hs.failures, hs.pausedUntil);

    const status = f.response?.status ?? null;
    if (failsForNow({ status: 'error', httpStatus: status, error: f.error })) {
      if (this.reached === 0) return { unreached: true, error: f.error, httpStatus: status, retryAt: this.clock.now() + this.gate.waitMs(host) };
    } else {
      this.reached++;
      this.lastReachedAt = this.clock.now();
    }
    const same = !firstRead && r.print != null && r.final === null && r.print.fingerprint === before.fingerprint;
    // A page that had no content (a crawl's 404, a gone page) and answers 404/410 again: nothing changed.
    const hadContent = before.status === 'done' || before.status === 'not-html';
    let action = refreshAction(status, same);
    if (action === 'gone' && !hadContent) action = 'keep';
    // The validators in force next time: this answer's (a 304 may repeat them), else the old ones.
    const facts = f.response?.facts;
    const validators: Validators = action === 'retry' ? old : { etag: facts?.etag ?? (action === 'keep' ? old.etag : null), lastModified: facts?.lastModified ?? (action === 'keep' ? old.lastModified : null) };
    const base = { action, httpStatus: status, error: f.error, validators, bytes: f.response?.body?.length ?? 0, firstRead, sentAt };
    if (action === 'replace') {
      // A page never read before is all new content.
      const was = firstRead ? { fingerprint: -1, textSize: 0 } : before;
      let out: CheckOutcome | undefined;
      this.writer.replace(r, (h: LinkChanges) => {
        out = { ...base, ...h, changed: changedChars(was, r.print ?? null, h.linksAdded, h.linksGone), ms: Math.round(performance.now() - t0) };
        record(out);
      });
      return out!;
    }
    if (action === 'gone') {
      let out: CheckOutcome | undefined;
      this.writer.gone(page.id, (h) => {
        out = { ...base, ...h, changed: (before.textSize ?? 0) + LINK_CHARS * h.linksGone, ms: Math.round(performance.now() - t0) };
        record(out);
      });
      return out!;
    }
    return done({ ...base, changed: 0, linksAdded: 0, linksGone: 0 }, plain);
  }

  async close(): Promise<void> {
    this.writer.group.flush();
    this.writer.text?.catchUp();
    await this.reader.close();
  }
}
