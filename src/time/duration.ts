import { UsageError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };

/** A duration as users type it: `500ms`, `90s`, `10m`, `1.5h`, `2d`, `1w` (a bare number is seconds). */
export function parseDuration(text: string, option: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`${option} wants a duration like 90s, 10m, 1h or 2d, got '${text}'`);
  return Number(m[1]) * UNIT_MS[(m[2] ?? 's').toLowerCase()]!;
}

/** A duration for people: '4m 05s', '1h 20m', '2.3 s'. */
export function formatDuration(ms: number): string {
  const tenths = Math.round(ms / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`;
  // Rounded before the form is chosen: 59.6 s is '1m 00s', never '60 s' or '0m 60s'.
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
