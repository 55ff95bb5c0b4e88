/**
 * A site's include / exclude patterns, as a user types them (`seeds add … --include/--exclude`):
 * - `re:<regex>`: a JavaScript regular expression searched in the whole URL (unanchored; write
 *   ^ and $ where you mean them), e.g. `re:[?&]page=\d+`;
 * - otherwise a glob, matched against the whole URL when it starts with http:// or https://, else
 *   against the path and query ('/news/2024/x.html?p=1'). `*` is any run of characters, `/`
 *   included; everything else is literal (`?` too: URLs are full of them). Anchored at both ends:
 *   `/news/*` is /news/ and everything under it.
 */
export interface UrlPattern {
  /** as the user typed it: stored, listed, and named in a held page's note */
  source: string;
  re: RegExp;
  /** true: matched against the whole URL; false: against path + query */
  whole: boolean;
}

/** A pattern, or why it is not one (one readable line). */
export function parseUrlPattern(source: string): UrlPattern | string {
  if (source.trim() === '') return 'an empty pattern';
  if (source.startsWith('re:')) {
    try {
      return { source, re: new RegExp(source.slice(3)), whole: true };
    } catch (err) {
      return `not a regular expression: '${source.slice(3)}' (${(err as Error).message})`;
    }
  }
  const whole = /^https?:\/\//i.test(source);
  const body = source.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return { source, re: new RegExp(`^${body}$`), whole };
}

/** Does a serialized http(s) URL match the pattern? */
export function matchesPattern(url: URL, p: UrlPattern): boolean {
  return p.re.test(p.whole ? url.href : url.pathname + url.search);
}
