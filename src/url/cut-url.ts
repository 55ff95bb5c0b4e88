import { sliceWhole } from '../markup/whole-chars.js';

/**
 * A URL shortened to `max` characters for a narrow column, whole path segments left out from the
 * middle: `https://docs.example.org/en/3.2/topics/auth/index.html` at 40 reads
 * `https://docs.example.org/…/index.html` — the host and the page's own name stay, no segment is
 * cut in two. When even the host and the last segment do not fit, the end is cut ('…').
 */
export function cutUrl(url: string, max: number): string {
  if (url.length <= max) return url;
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(\/[^?#]*)?(.*)$/is.exec(url);
  const endCut = () => sliceWhole(url, Math.max(0, max - 1)) + '…';
  if (!m) return endCut();
  const [, origin, path = '', rest = ''] = m;
  const segments = path.split('/').slice(1); // '/a/b/c' -> ['a', 'b', 'c']
  // The last segment keeps the query and fragment; head segments are kept as long as all fits.
  const last = `${segments.pop() ?? ''}${rest}`;
  for (let head = segments.length - 1; head >= 0; head--) {
    const kept = segments.slice(0, head);
    const out = `${origin}/${kept.map((s) => `${s}/`).join('')}…/${last}`;
    if (out.length <= max) return out;
  }
  return endCut();
}
