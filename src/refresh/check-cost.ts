/**
 * The time a check takes, as the S.C.E.N.T. article models it: A · size + B (pure). B is the
 * round trip and the server's think time, A the transfer per byte. Fitted by least squares on
 * the fetch log.
 */
export interface CheckCost {
  /** ms per byte */
  a: number;
  /** ms */
  b: number;
  /** samples the fit used (0: the defaults) */
  n: number;
}

/** With nothing to fit: a second per check, what a polite crawler's delay costs anyway. */
export const DEFAULT_COST: CheckCost = { a: 0, b: 1000, n: 0 };

export function checkMs(c: CheckCost, bytes: number): number {
  return c.a * Math.max(0, bytes) + c.b;
}

/**
 * Least squares of ms on bytes. A negative slope (noise) is no model of transfer: then B is the
 * mean time; a negative intercept: the line through the origin.
 */
export function fitCheckCost(samples: readonly { bytes: number; ms: number }[]): CheckCost {
  const n = samples.length;
  if (n === 0) return DEFAULT_COST;
  let sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const { bytes: x, ms: y } of samples) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const mean = sy / n;
  const varX = sxx - (sx * sx) / n;
  if (n < 2 || varX <= 0) return { a: 0, b: mean, n };
  const a = (sxy - (sx * sy) / n) / varX;
  const b = mean - a * (sx / n);
  if (a < 0) return { a: 0, b: mean, n };
  if (b < 0) return { a: sxx > 0 ? sxy / sxx : 0, b: 0, n };
  return { a, b, n };
}
