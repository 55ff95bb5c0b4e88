/**
 * The cues of an internal link that a best-first crawl learns from: the words of its anchor text
 * and of its URL path. On documentation sites the pages that link out most say so in both:
 * "Links", "Related projects", "Changelog", "Bibliography", "whatsnew/3.11.html", "genindex".
 * Words are lowercased; numbers and one-letter words are dropped (versions and page numbers say
 * nothing across pages); at most MAX_CUES per link. Pure.
 */
export const MAX_CUES = 12;

const WORD = /[\p{L}][\p{L}\p{N}]+/gu;

export function linkCues(url: string, anchor: string): string[] {
  const out = new Set<string>();
  let path = url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  path = start < 0 ? '' : url.slice(start);
  const q = path.search(/[?#]/);
  if (q >= 0) path = path.slice(0, q);
  // The file name without its extension counts as a word of its own ('genindex', 'links').
  for (const w of path.toLowerCase().replace(/\.(html?|php|aspx?|jsp)$/, '').match(WORD) ?? []) {
    if (out.size >= MAX_CUES) break;
    out.add(`u:${w}`);
  }
  for (const w of anchor.toLowerCase().match(WORD) ?? []) {
    if (out.size >= MAX_CUES) break;
    out.add(`a:${w}`);
  }
  return [...out];
}
