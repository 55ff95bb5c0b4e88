/**
 * Crawler traps: URLs a site generates without end (calendars, session paths, relative-link
 * loops). An internal link caught here is stored with the trap's name and never fetched.
 */
export interface TrapLimits {
  maxUrlLength: number;
  maxPathDepth: number;
  /** A run of path segments repeated this many times in a row (/a/b/a/b/a/b) is a loop. */
  maxRepeats: number;
}

export const defaultTrapLimits: TrapLimits = { maxUrlLength: 2048, maxPathDepth: 24, maxRepeats: 3 };

/**
 * The trap a URL falls into, or null. Pure: looks at the URL only. Takes the serialized href
 * (as linkFate produces it) so the hot path does not parse every link a second time.
 */
export function urlTrap(href: string, limits: TrapLimits = defaultTrapLimits): string | null {
  if (href.length > limits.maxUrlLength) return 'url-too-long';
  const segments = pathOf(href).split('/').filter((s) => s !== '');
  if (segments.length > limits.maxPathDepth) return 'path-too-deep';
  if (hasRepeatedRun(segments, limits.maxRepeats)) return 'repeated-path-segments';
  return null;
}

/** True when some run of 1..n/2 segments occurs `times` times back to back. */
function hasRepeatedRun(segments: readonly string[], times: number): boolean {
  const n = segments.length;
  for (let len = 1; len * times <= n; len++) {
    for (let start = 0; start + len * times <= n; start++) {
      let k = 1;
      while (k < times && sameRun(segments, start, start + k * len, len)) k++;
      if (k === times) return true;
    }
  }
  return false;
}

function sameRun(s: readonly string[], a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (s[a + i] !== s[b + i]) return false;
  return true;
}

/** The path of a serialized http(s) URL: after the authority, before '?' or '#'. */
function pathOf(href: string): string {
  const start = href.indexOf('/', href.indexOf('//') + 2);
  if (start < 0) return '/';
  let end = href.length;
  for (const c of ['?', '#']) {
    const i = href.indexOf(c, start);
    if (i >= 0 && i < end) end = i;
  }
  return href.slice(start, end);
}
