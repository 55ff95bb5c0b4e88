// What a failure means (pure, src/net/failure-rule.ts): the table from a pull's outcome to what it
// means for the page, its host and its site; the back-off; when a page becomes a permanent error;
// and docs/sites-and-crawling.md's table held equal to the module's, row by row.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  afterFailure, backoffMs, consequence, failsForNow, FAILURE_RULES, failuresInARow, givesUp, mayFailForGood, outcomeOf, retryWaitMs, robotsAnswer, rowInWords,
  type Consequence, type Outcome, type PullFacts,
} from '../../src/net/failure-rule.js';
import { waitsInRun } from '../../src/schedule/page-choice.js';

const error = (error: string | null, httpStatus: number | null = null): PullFacts => ({ status: 'error', httpStatus, error });
const answered = (status: string, httpStatus: number): PullFacts => ({ status, httpStatus, error: null });

describe('outcomeOf: which row a pull is', () => {
  it.each<[string, PullFacts, Outcome]>([
    ['an HTML page', answered('done', 200), 'html'],
    ['not HTML', answered('not-html', 200), 'not-a-page'],
    ['a redirect off the site', answered('redirect', 301), 'not-a-page'],
    ['a 404', error('HTTP 404', 404), 'page-error'],
    ['a 403', error('HTTP 403', 403), 'page-error'],
    ['999, no HTTP status', error('HTTP 999', 999), 'page-error'],
    ['a 101 as the final answer', error('HTTP 101', 101), 'page-error'],
    ['a bad chunk', error('bad-response: Parse Error: Invalid character in chunk size'), 'page-error'],
    ['two Content-Lengths', error('length-mismatch'), 'page-error'],
    ['another TLS error', error('tls: wrong version number'), 'page-error'],
    ['the size cap', error('too-large'), 'page-error'],
    ['a redirect loop', error('redirect-loop: http://a.test/'), 'page-error'],
    ['a redirect without Location', error('missing-location: HTTP 301 without Location'), 'page-error'],
    ['markup too deep', error('too-deep'), 'page-error'],
    ['DNS', error('dns: getaddrinfo ENOTFOUND x.test'), 'network-error'],
    ['refused', error('refused: connect ECONNREFUSED 127.0.0.1:1'), 'network-error'],
    ['reset', error('reset: socket hang up'), 'network-error'],
    ['unreachable', error('unreachable: EHOSTUNREACH'), 'network-error'],
    ['another network error', error('network: other side closed'), 'network-error'],
    ["a proxy's 502 to CONNECT", error('proxy refused the tunnel (502)'), 'network-error'],
    ["a proxy's 429 to CONNECT", error('proxy refused the tunnel (429)'), 'network-error'],
    ["a proxy's 403 to CONNECT", error('proxy refused the tunnel (403)'), 'page-error'],
    ["a proxy's 407 to CONNECT", error('proxy refused the tunnel (407)'), 'page-error'],
    ['connect timeout', error('connect-timeout'), 'timeout'],
    ['headers timeout', error('headers-timeout: Headers Timeout Error'), 'timeout'],
    ['body timeout', error('body-timeout'), 'timeout'],
    ['the page deadline', error('page-timeout'), 'timeout'],
    ['HTTP 500', error('HTTP 500', 500), 'http-retryable'],
    ['HTTP 503', error('HTTP 503', 503), 'http-retryable'],
    ['HTTP 429', error('HTTP 429', 429), 'http-retryable'],
    ['HTTP 408', error('HTTP 408', 408), 'http-retryable'],
    ['HTTP 503 from a host that asked to wait past max-backoff', { ...error('HTTP 503', 503), askedToWait: true }, 'retry-after-long'],
    ['a reset at a host that asked to wait past max-backoff', { ...error('reset: socket hang up'), askedToWait: true }, 'retry-after-long'],
    ['a 404 at a host that asked to wait: the page answered', { ...error('HTTP 404', 404), askedToWait: true }, 'page-error'],
    ['robots.txt unreadable', { ...error('robots.txt HTTP 502: everything disallowed for now'), robots: 'unreadable' }, 'robots-unreadable'],
    ['robots.txt unreadable at a host that asked to wait', { ...error('robots.txt HTTP 503: everything disallowed for now'), robots: 'unreadable', askedToWait: true }, 'retry-after-long'],
    ['a certificate not trusted', error('certificate not trusted: self-signed certificate in chain'), 'certificate'],
    ['an expired certificate', error('certificate expired on Jan  1 00:00:00 2020 GMT'), 'certificate'],
    ["robots.txt's certificate", { ...error('robots.txt unreachable (certificate is for other.test): everything disallowed for now'), robots: 'unreadable' }, 'certificate'],
  ])('%s', (_, facts, outcome) => {
    expect(outcomeOf(facts)).toBe(outcome);
  });
});

const forNow = { page: 'failed-for-now', host: 'backs-off', site: 'not-available-if-past-run', hold: null } as const;

describe('consequence: what an outcome means for the page, its host and its site', () => {
  it.each<[Outcome, { retriesSpent?: boolean; inARow?: boolean }, Omit<Consequence, 'outcomes'>]>([
    ['html', {}, { page: 'stored', host: 'answered', site: 'nothing', hold: null }],
    ['not-a-page', {}, { page: 'stored', host: 'answered', site: 'not-available', hold: null }],
    ['page-error', {}, { page: 'error', host: 'answered', site: 'not-available', hold: null }],
    ['network-error', {}, forNow],
    ['timeout', {}, forNow],
    ['http-retryable', {}, forNow],
    ['retry-after-long', {}, { page: 'failed-for-now', host: 'held-for-run', site: 'not-available-in-run', hold: 'asked-to-wait' }],
    ['robots-unreadable', {}, { page: 'failed-for-now', host: 'held-until', site: 'not-available-if-past-run', hold: 'robots' }],
    ['robots-no-file', {}, { page: 'fetched', host: 'nothing', site: 'nothing', hold: null }],
    ['certificate', {}, { page: 'put-off', host: 'held-for-run', site: 'not-available-in-run', hold: 'certificate' }],
    // escalations of a failure for now
    ['network-error', { retriesSpent: true }, { page: 'error', host: 'backs-off', site: 'not-available', hold: null }],
    ['retry-after-long', { retriesSpent: true }, { page: 'error', host: 'backs-off', site: 'not-available', hold: null }],
    ['robots-unreadable', { retriesSpent: true }, { page: 'error', host: 'backs-off', site: 'not-available', hold: null }],
    ['network-error', { inARow: true }, { page: 'failed-for-now', host: 'held-for-run', site: 'not-available-if-past-run', hold: 'paused' }],
    ['robots-unreadable', { inARow: true }, { page: 'failed-for-now', host: 'held-for-run', site: 'not-available-if-past-run', hold: 'paused' }],
    ['retry-after-long', { inARow: true }, { page: 'failed-for-now', host: 'held-for-run', site: 'not-available-in-run', hold: 'paused' }],
    ['http-retryable', { retriesSpent: true, inARow: true }, { page: 'error', host: 'held-for-run', site: 'not-available', hold: 'paused' }],
    // an answer or a certificate is not escalated: nothing of it failed for now
    ['page-error', { retriesSpent: true, inARow: true }, { page: 'error', host: 'answered', site: 'not-available', hold: null }],
    ['certificate', { retriesSpent: true, inARow: true }, { page: 'put-off', host: 'held-for-run', site: 'not-available-in-run', hold: 'certificate' }],
  ])('%s %j', (outcome, escalate, want) => {
    const c = consequence(outcome, escalate);
    expect({ page: c.page, host: c.host, site: c.site, hold: c.hold }).toEqual(want);
    expect(c.outcomes[0]).toBe(outcome);
  });

  it('says which rows it applied, the escalations after the failure', () => {
    expect(consequence('timeout', { retriesSpent: true, inARow: true }).outcomes).toEqual(['timeout', 'retries-spent', 'failures-in-a-row']);
    expect(consequence('timeout').outcomes).toEqual(['timeout']);
  });

  it('every row of the table is what consequence says of it; an escalation is not an outcome of its own', () => {
    for (const r of FAILURE_RULES) {
      if (r.outcome === 'retries-spent' || r.outcome === 'failures-in-a-row') {
        expect(() => consequence(r.outcome)).toThrow(/escalates/);
        continue;
      }
      const c = consequence(r.outcome);
      expect([c.page, c.host, c.site, c.hold]).toEqual([r.page, r.host, r.site, r.hold]);
    }
    expect(new Set(FAILURE_RULES.map((r) => r.outcome)).size).toBe(FAILURE_RULES.length);
  });

  it('a held host has a hold, and only a held host', () => {
    for (const r of FAILURE_RULES) if (r.host !== null) expect(r.hold !== null).toBe(r.host === 'held-until' || r.host === 'held-for-run');
  });
});

describe('failsForNow (sitemaps and the re-checks of refresh and watch)', () => {
  it.each(['dns: getaddrinfo ENOTFOUND x.test', 'refused: connect ECONNREFUSED 127.0.0.1:1', 'reset: socket hang up', 'unreachable: EHOSTUNREACH',
    'network: other side closed', 'connect-timeout', 'headers-timeout: Headers Timeout Error', 'body-timeout', 'page-timeout'])('%s is not now', (e) => {
    expect(failsForNow(error(e))).toBe(true);
  });

  it.each([500, 502, 503, 504, 429, 408])('HTTP %i is not now', (status) => {
    expect(failsForNow(error(`HTTP ${status}`, status))).toBe(true);
  });

  it.each([400, 401, 403, 404, 410, 451, 999, 600, 101])("HTTP %i is the page's own answer", (status) => {
    expect(failsForNow(error(`HTTP ${status}`, status))).toBe(false);
  });

  it.each(['bad-response: Parse Error: Invalid character in chunk size', 'length-mismatch', 'tls: CERT_HAS_EXPIRED', 'too-large', 'redirect-loop: http://a.test/',
    'robots-denied', 'missing-location: HTTP 301 without Location', 'certificate not trusted: self-signed certificate'])("%s is not a failure for now", (e) => {
    expect(failsForNow(error(e))).toBe(false);
  });

  it('a page that was read is never a failure for now, whatever it says', () => {
    expect(failsForNow(answered('done', 200))).toBe(false);
    expect(failsForNow(answered('not-html', 200))).toBe(false);
    expect(failsForNow(answered('redirect', 301))).toBe(false);
  });
});

describe('robotsAnswer (RFC 9309)', () => {
  it.each<[Parameters<typeof robotsAnswer>[0], string]>([
    [{ status: 200 }, 'rules'], [{ status: 204 }, 'rules'],
    [{ status: 404 }, 'no-file'], [{ status: 401 }, 'no-file'], [{ status: 403 }, 'no-file'], [{ unavailable: 'more than 5 redirects' }, 'no-file'],
    [{ status: 429 }, 'unreadable'], [{ status: 500 }, 'unreadable'], [{ status: 503 }, 'unreadable'], [{ status: 301 }, 'unreadable'],
    [{ status: 101 }, 'unreadable'], [{ error: 'refused' }, 'unreadable'], [{ error: 'page-timeout' }, 'unreadable'],
  ])('%j: %s', (answer, want) => {
    expect(robotsAnswer(answer)).toBe(want);
  });
});

describe("docs/sites-and-crawling.md's table is the module's", () => {
  const doc = readFileSync(new URL('../../docs/sites-and-crawling.md', import.meta.url), 'utf8').split('\n');
  const header = doc.findIndex((l) => /^\s*\| outcome \| the page \| its host \| its site/.test(l));
  const cells = (l: string) => l.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
  const rows: string[][] = [];
  for (let i = header + 2; header >= 0 && i < doc.length && /^\s*\|/.test(doc[i]!); i++) rows.push(cells(doc[i]!));

  it('has the table', () => {
    expect(header).toBeGreaterThanOrEqual(0);
    expect(cells(doc[header]!)).toEqual(['outcome', 'the page', 'its host', 'its site (when it is the start page)', 'asked again']);
  });

  it('row by row, in the same order', () => {
    expect(rows.map((r) => r[0])).toEqual(FAILURE_RULES.map((r) => r.when));
    FAILURE_RULES.forEach((r, i) => expect(rows[i], r.outcome).toEqual(rowInWords(r)));
  });
});

describe('backoffMs', () => {
  it('doubles the delay (at least 250 ms) per failure in a row, up to the cap', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 0, null, 60_000))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffMs(3, 1000, null, 60_000)).toBe(8000);
    expect(backoffMs(20, 250, null, 60_000)).toBe(60_000);
    expect(backoffMs(1000, 250, null, 60_000)).toBe(60_000); // no overflow
  });

  it('honours a longer Retry-After, still capped', () => {
    expect(backoffMs(1, 0, 5000, 60_000)).toBe(5000);
    expect(backoffMs(1, 0, 100, 60_000)).toBe(500); // a shorter one does not shorten the back-off
    expect(backoffMs(1, 0, 3_600_000, 60_000)).toBe(60_000);
  });
});

describe('afterFailure', () => {
  const rule = { attempts: 3, spanMs: 600_000 };
  const t0 = 1_000_000;

  it('keeps a page that failed for the first time, with its first failure and its retry time', () => {
    expect(afterFailure({ attempts: 0, firstFailedAt: null }, t0, rule, 500)).toEqual({ kind: 'retry', attempts: 1, firstFailedAt: t0, retryAt: t0 + 500 });
  });

  it('never makes quick failures permanent, however many: the span must pass', () => {
    let p = { attempts: 0, firstFailedAt: null as number | null };
    for (let i = 0; i < 20; i++) {
      const d = afterFailure(p, t0 + i * 1000, rule, 1000);
      expect(d.kind).toBe('retry');
      if (d.kind === 'retry') p = { attempts: d.attempts, firstFailedAt: d.firstFailedAt };
    }
    expect(p).toEqual({ attempts: 20, firstFailedAt: t0 });
  });

  it('is permanent at the N-th attempt once the first failure is retry-span old, not before', () => {
    expect(afterFailure({ attempts: 2, firstFailedAt: t0 }, t0 + 600_000, rule, 500)).toEqual({ kind: 'permanent', attempts: 3 });
    expect(afterFailure({ attempts: 2, firstFailedAt: t0 }, t0 + 599_999, rule, 500).kind).toBe('retry');
    expect(afterFailure({ attempts: 1, firstFailedAt: t0 }, t0 + 3_600_000, rule, 500).kind).toBe('retry'); // old, but only 2 attempts
  });

  it('with retry-span 0, N attempts are enough', () => {
    expect(afterFailure({ attempts: 2, firstFailedAt: t0 }, t0, { attempts: 3, spanMs: 0 }, 500).kind).toBe('permanent');
  });
});

describe('failuresInARow and givesUp', () => {
  it('counts each page once in a streak', () => {
    expect(failuresInARow(0, false)).toBe(1);
    expect(failuresInARow(4, true)).toBe(4); // the same page again
    expect(failuresInARow(4, false)).toBe(5);
  });

  it('gives up on a host when a new page makes its streak reach give-up-after, not when a page fails again', () => {
    expect(givesUp(9, 10, 10)).toBe(true);
    expect(givesUp(10, 11, 10)).toBe(true);
    expect(givesUp(10, 10, 10)).toBe(false); // the same page again
    expect(givesUp(8, 9, 10)).toBe(false);
  });
});

describe('mayFailForGood', () => {
  it('a page fails for good only in a run that reached some server (or when every failure is final at once)', () => {
    expect(mayFailForGood(true, 600_000)).toBe(true);
    expect(mayFailForGood(false, 600_000)).toBe(false);
    expect(mayFailForGood(false, 0)).toBe(true);
  });
});

describe('waitsInRun', () => {
  it("waits for a host's pause, up to the back-off cap, not for a page's retry-span beyond it", () => {
    expect(waitsInRun(500, 60_000)).toBe(true);
    expect(waitsInRun(60_000, 60_000)).toBe(true);
    expect(waitsInRun(60_001, 60_000)).toBe(false);
    expect(waitsInRun(600_000, 60_000)).toBe(false);
  });
});

describe('retryWaitMs', () => {
  it("waits the host's back-off for the first tries of a run, then retry-span", () => {
    const rule = { attempts: 3, spanMs: 600_000 };
    expect([1, 2, 3, 4].map((t) => retryWaitMs(t, rule, 500))).toEqual([500, 500, 600_000, 600_000]);
  });
});
