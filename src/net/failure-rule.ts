import { certificateIn } from './certificate.js';
/**
 * What a failure means (pure): the one table from what a pull gave (an HTTP status, a network
 * error, a timeout, a certificate, robots.txt's answer, a Retry-After, failures in a row) to what
 * it means for the page, for its host (per origin) and for its site, and the rules that go with it:
 * how long a host backs off, when a page that keeps failing becomes an error for good. The crawl
 * loop (crawl/crawler.ts), robots.txt, sitemaps and the re-checks of refresh and watch consult
 * it; the store records what it says. docs/sites-and-crawling.md's table is this table in words
 * (test/net/failure-rule.test.ts holds them equal).
 */

/** What a pull gave, as far as the rule needs it. */
export type Outcome =
  | 'html'
  | 'not-a-page'
  | 'page-error'
  | 'network-error'
  | 'timeout'
  | 'http-retryable'
  | 'retry-after-long'
  | 'robots-unreadable'
  | 'robots-no-file'
  | 'certificate'
  /** escalations of a failure for now, applied on top of it (consequence) */
  | 'retries-spent'
  | 'failures-in-a-row';

/**
 * fetched: asked as if robots.txt said nothing; stored: stored as fetched; error: its own error, for good; failed-for-now: stays queued, the attempt counted, asked
 * again; put-off: stays queued, no attempt counted (nothing was asked of it).
 */
export type PageFate = 'fetched' | 'stored' | 'error' | 'failed-for-now' | 'put-off';

/**
 * nothing: untouched; answered: the host answered, its failures in a row end (and a hold that runs
 * out anyway ends now); backs-off: the delay doubled per failure (backoffMs); held-until: not asked
 * until a time in this run; held-for-run: not asked again in this run.
 */
export type HostFate = 'nothing' | 'answered' | 'backs-off' | 'held-until' | 'held-for-run';

/**
 * What a start page's outcome means for its site. not-available-if-past-run: Not Available in this
 * run when the page waits past what the run waits for; not-available-in-run: Not Available in this
 * run (the next crawl tries it again); not-available: until `seeds retry`.
 */
export type SiteFate = 'nothing' | 'not-available-if-past-run' | 'not-available-in-run' | 'not-available';

/**
 * Why a host is held (net/host-holds.ts). robots: its robots.txt could not be read; asked-to-wait:
 * a Retry-After past max-backoff; paused: give-up-after pages in a row failed; certificate: its TLS
 * certificate is not accepted.
 */
export type HoldKind = 'robots' | 'asked-to-wait' | 'paused' | 'certificate';

export interface FailureRow {
  outcome: Outcome;
  /** the outcome in the words of the docs' table */
  when: string;
  /** null: as the failure it escalates */
  page: PageFate | null;
  host: HostFate | null;
  site: SiteFate | null;
  /** the hold a held host gets */
  hold: HoldKind | null;
  /** when the page is asked again, in words */
  again: string;
}

const FOR_NOW = {
  page: 'failed-for-now', host: 'backs-off', site: 'not-available-if-past-run', hold: null,
  again: 'in this run after the back-off, `retry-attempts` times; then after `retry-span` or in the next run',
} as const;
const NEVER = 'no (a start page: `seeds retry`)';

/** The table, in the order of the docs' table. */
export const FAILURE_RULES: readonly FailureRow[] = [
  { outcome: 'html', when: 'an HTML page', page: 'stored', host: 'answered', site: 'nothing', hold: null, again: 'no' },
  { outcome: 'not-a-page', when: 'not HTML, a redirect off the site', page: 'stored', host: 'answered', site: 'not-available', hold: null, again: NEVER },
  {
    outcome: 'page-error',
    when: 'malformed answer (bad chunk, two Content-Lengths, not HTTP, a status outside 1xx-5xx such as 999, a 101 or 100 as the final answer), another TLS error (no TLS spoken, a handshake failure), size cap, 4xx, redirect trouble',
    page: 'error', host: 'answered', site: 'not-available', hold: null, again: NEVER,
  },
  { outcome: 'network-error', when: "network error (DNS, refused, reset, unreachable; a proxy's 5xx, 429 or 408 to CONNECT)", ...FOR_NOW },
  { outcome: 'timeout', when: 'connect/headers/body timeout, `page-timeout`', ...FOR_NOW },
  { outcome: 'http-retryable', when: 'HTTP 5xx, 429, 408', ...FOR_NOW },
  { outcome: 'retry-after-long', when: '429/503 with a `Retry-After` longer than `max-backoff`', ...FOR_NOW, host: 'held-for-run', site: 'not-available-in-run', hold: 'asked-to-wait', again: 'when the server said, by the next crawl' },
  { outcome: 'robots-unreadable', when: 'robots.txt unreadable (network error, timeout, 5xx, 429, a redirect without Location)', ...FOR_NOW, host: 'held-until', hold: 'robots', again: "when the file is asked for again, after the host's back-off" },
  { outcome: 'robots-no-file', when: 'robots.txt missing (4xx) or more than 5 redirects', page: 'fetched', host: 'nothing', site: 'nothing', hold: null, again: '—' },
  {
    outcome: 'certificate',
    when: 'TLS certificate not accepted (`certificate not trusted: self-signed certificate in chain`, `certificate expired on …`, `certificate is for other.host`)',
    page: 'put-off', host: 'held-for-run', site: 'not-available-in-run', hold: 'certificate',
    again: 'by the next crawl; `crawl --no-check-certificate` crawls it (below)',
  },
  {
    outcome: 'retries-spent',
    when: 'a page failed for now `retry-attempts` times spread over `retry-span`, in a run that reached some server',
    page: 'error', host: 'backs-off', site: 'not-available', hold: null, again: NEVER,
  },
  {
    outcome: 'failures-in-a-row',
    when: '`give-up-after` pages in a row failed for now on one host (each page once: a page that failed in an earlier run and fails again adds nothing)',
    page: null, host: 'held-for-run', site: null, hold: 'paused', again: 'by the next crawl',
  },
];

/** The words of the docs' table for each column's values; null: as the failure the row escalates. */
const PAGE_WORDS: Record<PageFate, string> = {
  fetched: 'fetched, as if there were no robots.txt',
  stored: 'stored',
  error: 'its own `error`, for good',
  'failed-for-now': 'failed for now: stays queued, an attempt counted',
  'put-off': 'put off: stays queued, no attempt counted',
};
const HOST_WORDS: Record<HostFate, string> = {
  nothing: 'nothing',
  answered: 'answered: its failures in a row end',
  'backs-off': 'backs off: the delay doubled per failure, at least a `Retry-After`, at most `max-backoff`',
  'held-until': 'held until its back-off ends; its other pages wait, uncharged',
  'held-for-run': 'held for the run; its other pages wait, uncharged',
};
const SITE_WORDS: Record<SiteFate, string> = {
  nothing: 'nothing',
  'not-available-if-past-run': 'Not Available in this run once the page waits longer than `max-backoff`',
  'not-available-in-run': 'Not Available in this run',
  'not-available': 'Not Available until `seeds retry`',
};
const AS_THE_FAILURE = 'as the failure';

/** A row of the table as the docs' table says it: outcome, the page, its host, its site (a start page's), asked again. */
export function rowInWords(r: FailureRow): string[] {
  const say = <T extends string>(words: Record<T, string>, v: T | null) => (v === null ? AS_THE_FAILURE : words[v]);
  return [r.when, say(PAGE_WORDS, r.page), say(HOST_WORDS, r.host), say(SITE_WORDS, r.site), r.again];
}

const ESCALATIONS = new Set<Outcome>(['retries-spent', 'failures-in-a-row']);
const BY_OUTCOME = new Map(FAILURE_RULES.map((r) => [r.outcome, r]));

/** What an outcome means, all columns filled. */
export interface Consequence {
  /** the rows applied, the pull's outcome first */
  outcomes: Outcome[];
  page: PageFate;
  host: HostFate;
  site: SiteFate;
  hold: HoldKind | null;
}

/**
 * What an outcome means. A failure for now escalates: once the page's retries are spent it is an
 * error for good (and nothing of its host waits for it); `give-up-after` pages in a row failing
 * hold the host for the run, whatever became of the page.
 */
export function consequence(outcome: Outcome, escalate: { retriesSpent?: boolean; inARow?: boolean } = {}): Consequence {
  const base = BY_OUTCOME.get(outcome)!;
  if (ESCALATIONS.has(outcome) || base.page === null || base.host === null || base.site === null) throw new Error(`${outcome} escalates a failure for now, it is not one`);
  let c: Consequence = { outcomes: [outcome], page: base.page, host: base.host, site: base.site, hold: base.hold };
  if (c.page !== 'failed-for-now') return c;
  for (const [applies, by] of [[escalate.retriesSpent, 'retries-spent'], [escalate.inARow, 'failures-in-a-row']] as const) {
    if (!applies) continue;
    const r = BY_OUTCOME.get(by)!;
    c = { outcomes: [...c.outcomes, by], page: r.page ?? c.page, host: r.host ?? c.host, site: r.site ?? c.site, hold: r.host === null ? c.hold : r.hold };
  }
  return c;
}

/** Errors of the network or of the page's time: the server or the path to it may recover. */
const NETWORK_ERRORS = new Set(['dns', 'refused', 'reset', 'unreachable', 'network']);
const TIMEOUTS = new Set(['connect-timeout', 'headers-timeout', 'body-timeout', 'page-timeout']);

/** What a pull gave: its stored status, HTTP status and the fetch log's error (`reason: detail`, http.ts FetchError). */
export interface PullFacts {
  status: string;
  httpStatus: number | null;
  error: string | null;
  /** robots.txt unreadable: the page is disallowed for now (a page its rules disallow is a link's fate, page/link-fate.ts) */
  robots?: 'unreadable' | null;
  /** the host asked not to be asked before a time past max-backoff (net/host-gate.ts closedUntil) */
  askedToWait?: boolean;
}

/**
 * A 5xx, 429 or 408: the server may answer otherwise later. A status outside 1xx-5xx (999, which
 * some sites send crawlers they block) is no HTTP answer at all: malformed, like a 1xx final.
 */
export function retryableStatus(status: number): boolean {
  return (status >= 500 && status <= 599) || status === 429 || status === 408;
}

/** Which row of the table a pull is. */
export function outcomeOf(p: PullFacts): Outcome {
  if (certificateIn(p.error) !== null) return 'certificate';
  // robots.txt unreadable: the page is disallowed for now (RFC 9309), a failure for now like its host's
  const forNow = p.robots === 'unreadable' ? 'robots-unreadable' : forNowOutcome(p);
  if (forNow !== null) return p.askedToWait ? 'retry-after-long' : forNow;
  if (p.status === 'done') return 'html';
  return p.status === 'error' ? 'page-error' : 'not-a-page';
}

function forNowOutcome(p: PullFacts): Outcome | null {
  if (p.status !== 'error') return null;
  if (p.httpStatus !== null) return retryableStatus(p.httpStatus) ? 'http-retryable' : null;
  if (p.error === null) return null;
  const reason = p.error.split(':', 1)[0]!.trim();
  // A proxy's answer to CONNECT reads as a server's: a 502 or 503 from it may pass.
  const tunnel = /^proxy refused the tunnel \((\d+)\)$/.exec(reason);
  if (tunnel) return retryableStatus(Number(tunnel[1])) ? 'network-error' : null;
  if (TIMEOUTS.has(reason)) return 'timeout';
  return NETWORK_ERRORS.has(reason) ? 'network-error' : null;
}

/** Whether a pull failed for now: the page may answer later (a failure a sitemap or a re-check waits out too). */
export function failsForNow(p: PullFacts): boolean {
  return consequence(outcomeOf(p)).page === 'failed-for-now';
}

/**
 * What robots.txt's answer (after at most 5 redirects) makes of its origin (RFC 9309): 2xx, its
 * rules; 4xx (401 and 403 included, 2.3.1.3) or more than 5 redirects (2.3.1.2), no file: any page
 * may be fetched; anything else (5xx, 2.3.1.4; 429; a redirect left without Location; a network
 * error) unreadable: everything disallowed for now, never fail open on a file we could not read.
 */
export function robotsAnswer(answer: { status: number } | { error: string } | { unavailable: string }): 'rules' | 'no-file' | 'unreadable' {
  if ('error' in answer) return 'unreadable';
  if ('unavailable' in answer) return 'no-file';
  const { status } = answer;
  if (status >= 200 && status < 300) return 'rules';
  // 429 is a 4xx, but it is the server asking us to back off, not saying "there is no file":
  // failing open there would crawl a site that is already struggling (Google treats it as 5xx).
  return status >= 400 && status < 500 && status !== 429 ? 'no-file' : 'unreadable';
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
 * After a failure for now at `now`: a permanent error once the page failed `rule.attempts` times
 * spread over at least `rule.spanMs`; otherwise it stays in the frontier, asked again after
 * `waitMs`. Only time makes it permanent: a storm of quick failures never does.
 */
export function afterFailure(p: Attempts, now: number, rule: RetryRule, waitMs: number): AfterFailure {
  const attempts = p.attempts + 1;
  const firstFailedAt = p.firstFailedAt ?? now;
  if (attempts >= rule.attempts && now - firstFailedAt >= rule.spanMs) return { kind: 'permanent', attempts };
  return { kind: 'retry', attempts, firstFailedAt, retryAt: now + waitMs };
}

/**
 * Whether a page that used up its attempts may become a permanent error now: only in a run that
 * reached some server. When nothing answers, the network or a proxy is the likelier fault, not the
 * page. retry-span 0 asks for every failure to be final at once, and gets it.
 */
export function mayFailForGood(reachedInRun: boolean, retrySpanMs: number): boolean {
  return reachedInRun || retrySpanMs === 0;
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
 * A host's failures in a row after a page failed for now: a page that had not failed before in
 * this streak adds one (a page retried counts once). Any outcome that reached the server ends it.
 */
export function failuresInARow(before: number, pageFailedBefore: boolean): number {
  return pageFailedBefore ? before : before + 1;
}

/** Whether a page's failure just made its host's streak reach give-up-after (each page once). */
export function givesUp(before: number, after: number, giveUpAfter: number): boolean {
  return after > before && after >= giveUpAfter;
}
