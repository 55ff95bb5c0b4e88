/**
 * Transient failures (pure): which outcome of a pull means "not now" rather than "never", how
 * long a host waits before it is asked again, and when a page that keeps failing becomes a
 * permanent error. The crawl loop (crawl/crawler.ts) applies them; the frontier keeps their state.
 */

/** Errors of the network or of the page's time: the server or the path to it may recover. */
const TRANSIENT_ERRORS = new Set([
  'dns', 'refused', 'reset', 'unreachable', 'network', 'connect-timeout', 'headers-timeout', 'body-timeout', 'page-timeout',
]);

/** What a pull gave, as far as the rule needs it. */
export interface Outcome {
  status: string;
  httpStatus: number | null;
  /** the fetch log's error, `reason: detail` (http.ts FetchError) */
  error: string | null;
}

/**
 * A 5xx, 429 or 408: the server may answer otherwise later. A status outside 1xx-5xx (999, which
 * some sites send crawlers they block) is no HTTP answer at all: malformed, like a 1xx final.
 */
export function retryableStatus(status: number): boolean {
  return (status >= 500 && status <= 599) || status === 429 || status === 408;
}

/**
 * A network error, a timeout, a 5xx, 429 or 408: the page may answer later. A malformed answer
 * (bad-response, length-mismatch, a status outside 1xx-5xx), TLS, a size cap or any other 4xx
 * is the page's own error.
 */
export function isTransient(o: Outcome): boolean {
  if (o.status !== 'error') return false;
  if (o.httpStatus !== null) return retryableStatus(o.httpStatus);
  if (o.error === null) return false;
  const reason = o.error.split(':', 1)[0]!.trim();
  // A proxy's answer to CONNECT reads as a server's: a 502 or 503 from it may pass.
  const tunnel = /^proxy refused the tunnel \((\d+)\)$/.exec(reason);
  if (tunnel) return retryableStatus(Number(tunnel[1]));
  return TRANSIENT_ERRORS.has(reason);
}

/**
 * How long a host rests after its `failures`-th failure in a row: the delay (at least 250 ms)
 * doubled per failure, or the server's Retry-After when longer; never more than `maxMs`.
 */
export function backoffMs(failures: number, delayMs: number, retryAfterMs: number | null, maxMs: number): number {
  const grown = Math.max(delayMs, 250) * 2 ** Math.min(Math.max(failures, 1), 20);
  return Math.min(maxMs, Math.max(grown, retryAfterMs ?? 0));
}

/** A page's failures so far (columns of `pages`). */
export interface Attempts {
  /** failed attempts before this one */
  attempts: number;
  /** when the first of them failed, epoch ms; null: none failed */
  firstFailedAt: number | null;
}

export interface RetryRule {
  /** attempts after which a page may become a permanent error */
  attempts: number;
  /** ...and only once its first failure is at least this old, ms */
  spanMs: number;
}

export type AfterFailure =
  | { kind: 'permanent'; attempts: number }
  /** stays queued, not before `retryAt` (epoch ms) */
  | { kind: 'retry'; attempts: number; firstFailedAt: number; retryAt: number };

/**
 * After a transient failure at `now`: a permanent error once the page failed `rule.attempts`
 * times spread over at least `rule.spanMs`; otherwise it stays in the frontier, asked again after
 * `waitMs`. Only time makes it permanent: a storm of quick failures never does.
 */
export function afterFailure(p: Attempts, now: number, rule: RetryRule, waitMs: number): AfterFailure {
  const attempts = p.attempts + 1;
  const firstFailedAt = p.firstFailedAt ?? now;
  if (attempts >= rule.attempts && now - firstFailedAt >= rule.spanMs) return { kind: 'permanent', attempts };
  return { kind: 'retry', attempts, firstFailedAt, retryAt: now + waitMs };
}

/**
 * How long a page that failed for now waits: the host's back-off, until it has been tried
 * `rule.attempts` times in this run; then `rule.spanMs` (a run waits that long only when it is
 * short, see schedule/page-choice.ts waitsInRun: otherwise a later run asks, or this one once the span is over).
 */
export function retryWaitMs(triesInRun: number, rule: RetryRule, backoff: number): number {
  return triesInRun >= rule.attempts ? rule.spanMs : backoff;
}

/**
 * A site's failures in a row after a pull: a transient failure of a page that had not failed
 * before in this streak adds one (a page retried counts once); any other outcome ends the streak.
 */
export function siteFailures(before: number, transient: boolean, pageFailedBefore: boolean): number {
  if (!transient) return 0;
  return pageFailedBefore ? before : before + 1;
}
