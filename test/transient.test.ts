// The transient-failure rule (pure): which outcome is "not now", the back-off, when a page becomes a permanent error.
import { describe, expect, it } from 'vitest';
import { afterFailure, backoffMs, isTransient, retryWaitMs, siteFailures } from '../src/net/transient.js';
import { waitsInRun } from '../src/schedule/page-choice.js';

const error = (error: string | null, httpStatus: number | null = null) => ({ status: 'error', httpStatus, error });

describe('isTransient', () => {
  it.each(['dns: getaddrinfo ENOTFOUND x.test', 'refused: connect ECONNREFUSED 127.0.0.1:1', 'reset: socket hang up', 'unreachable: EHOSTUNREACH',
    'network: other side closed', 'connect-timeout', 'headers-timeout: Headers Timeout Error', 'body-timeout', 'page-timeout'])('%s is not now', (e) => {
    expect(isTransient(error(e))).toBe(true);
  });

  it.each([500, 502, 503, 504, 429, 408])('HTTP %i is not now', (status) => {
    expect(isTransient(error(`HTTP ${status}`, status))).toBe(true);
  });

  it.each([400, 401, 403, 404, 410, 451])('HTTP %i is the page\'s own answer', (status) => {
    expect(isTransient(error(`HTTP ${status}`, status))).toBe(false);
  });

  it.each(['bad-response: Parse Error: Invalid character in chunk size', 'length-mismatch', 'tls: CERT_HAS_EXPIRED', 'too-large', 'redirect-loop: http://a.test/',
    'robots-denied', 'missing-location: HTTP 301 without Location'])('%s is the page\'s own error (malformed, policy, or certain)', (e) => {
    expect(isTransient(error(e))).toBe(false);
  });

  it.each([[502, true], [503, true], [429, true], [403, false], [407, false]])('a proxy that answers CONNECT with %i: not now is %s', (status, forNow) => {
    expect(isTransient(error(`proxy refused the tunnel (${status})`))).toBe(forNow);
  });

  it.each([999, 600, 101])('HTTP %i is a malformed answer, not a passing failure', (status) => {
    expect(isTransient(error(`HTTP ${status}`, status))).toBe(false);
  });

  it('a page that was read is never transient, whatever it says', () => {
    expect(isTransient({ status: 'done', httpStatus: 200, error: null })).toBe(false);
    expect(isTransient({ status: 'not-html', httpStatus: 200, error: null })).toBe(false);
    expect(isTransient({ status: 'redirect', httpStatus: 301, error: null })).toBe(false);
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

describe('siteFailures', () => {
  it('counts each page once in a streak and ends the streak on any other outcome', () => {
    expect(siteFailures(0, true, false)).toBe(1);
    expect(siteFailures(4, true, true)).toBe(4); // the same page again
    expect(siteFailures(4, true, false)).toBe(5);
    expect(siteFailures(9, false, true)).toBe(0); // a malformed page, a 404, a success: not the host's failure
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
