// Durations as users type them and as messages show them (pure).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { formatDuration, parseDuration } from '../../src/time/duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseDuration', () => {
  it('reads every unit, in any case, with or without a space; a bare number is seconds', () => {
    expect(['500ms', '90s', '10m', '1h', '2d', '1w'].map((t) => parseDuration(t, '--for'))).toEqual([500, 90 * S, 10 * M, H, 2 * D, 7 * D]);
    expect(['2H', '3 m', ' 10 s ', '5', '0'].map((t) => parseDuration(t, '--for'))).toEqual([2 * H, 3 * M, 10 * S, 5 * S, 0]);
  });

  it('reads decimals', () => {
    expect(parseDuration('1.5h', '--for')).toBe(1.5 * H);
    expect(parseDuration('0.25', '--for')).toBe(250);
  });

  it("refuses anything else as a usage error that names the option and quotes the value", () => {
    for (const bad of ['', 'abc', '1y', '-5s', '1e3', '.5s', '1.s', '5s5', '1h30m']) {
      expect(() => parseDuration(bad, '--until')).toThrow(UsageError);
      expect(() => parseDuration(bad, '--until')).toThrow(`--until wants a duration like 90s, 10m, 1h or 2d, got '${bad}'`);
    }
  });
});

describe('formatDuration', () => {
  it('shows seconds with a decimal under 10 s, whole seconds under a minute', () => {
    expect([0, 50, 2_300, 9_900].map(formatDuration)).toEqual(['0.0 s', '0.1 s', '2.3 s', '9.9 s']);
    expect([10 * S, 42_400, 59 * S].map(formatDuration)).toEqual(['10 s', '42 s', '59 s']);
  });

  it('shows minutes and two-digit seconds under an hour, hours and two-digit minutes above', () => {
    expect([M, 4 * M + 5 * S, 59 * M + 30 * S].map(formatDuration)).toEqual(['1m 00s', '4m 05s', '59m 30s']);
    expect([H, H + 20 * M, H + 20 * M + 59 * S, 2 * D].map(formatDuration)).toEqual(['1h 00m', '1h 20m', '1h 20m', '48h 00m']);
  });

  it('rounds before it chooses the form: a time just under a boundary shows as the next form, never as 60 of a unit', () => {
    expect([9_949, 9_950, 9_999].map(formatDuration)).toEqual(['9.9 s', '10 s', '10 s']);
    expect([59_499, 59_500, 59_999].map(formatDuration)).toEqual(['59 s', '1m 00s', '1m 00s']);
    expect([2 * M - 1, H - 1].map(formatDuration)).toEqual(['2m 00s', '1h 00m']);
  });
});
