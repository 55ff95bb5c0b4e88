import { sliceWhole } from './whole-chars.js';

/**
 * A URL shortened to `max` characters for a narrow column, whole path segments left out from the
 * middle: `https://docs.example.org/en/3.2/topics/auth/index.html` at 37 reads
 * `https://docs.example.org/…/index.html` — the host and the page's own name stay, no segment is
 * cut in two. Without room for the last segment, the folders that fit and '…'; without room
 * for the host, the end is cut.
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
  const folders = (n: number) => `${origin}/${segments.slice(0, n).map((s) => `${s}/`).join('')}…`;
  for (let head = segments.length - 1; head >= 0; head--) if (`${folders(head)}/${last}`.length <= max) return `${folders(head)}/${last}`;
  // No room for the last segment: the folders that fit, cut after a '/'.
  for (let head = segments.length; head >= 0; head--) if (folders(head).length <= max) return folders(head);
  return endCut();
}
