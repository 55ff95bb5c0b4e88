/**
 * The cues of an internal link that a best-first crawl learns from (Shark-Search's neighbourhood
 * of a link, with learned weights instead of a fixed topic): the words of its URL path (u:) and
 * anchor text (a:), and, when the page was read with context, the words just before the link
 * (c:), the linking page's title (h:) and the link's place in the page (p:, its tag path: links
 * in the same list of the same template share it, as SB-CLASSIFIER groups links).
 * On documentation sites the pages that link out most say so: "Links", "Related projects",
 * "Changelog", "Bibliography", "whatsnew/3.11.html", "genindex". Words are lowercased; numbers
 * and one-letter words are dropped (versions and page numbers say nothing across pages); each
 * kind has its own cap, so a long anchor cannot crowd out the URL. Pure.
 */
export interface LinkContext {
  /** tag path of the link in its page, e.g. 'div.related>ul>li' */
  path?: string;
  /** text just before the link in its block */
  around?: string;
  /** title of the linking page */
  title?: string;
}

const CAP = { u: 6, a: 6, c: 4, h: 3 };
/** Every kind of cue; an order that reads fewer (link-value.ts drop) has only those made. */
export const CUE_KINDS: readonly string[] = ['u', 'a', 'c', 'h', 'p'];
export const MAX_CUES = CAP.u + CAP.a + CAP.c + CAP.h + 1;

const WORD = /[\p{L}][\p{L}\p{N}]+/gu;
// The same words in ASCII text (most anchors and paths), without the Unicode tables: linkCues a third cheaper.
const ASCII_WORD = /[a-z][a-z0-9]+/g;
const NOT_ASCII = /[^\x00-\x7f]/;

function words(out: string[], prefix: keyof typeof CAP, text: string): void {
  let n = 0;
  const lower = text.toLowerCase();
  for (const w of lower.match(NOT_ASCII.test(lower) ? WORD : ASCII_WORD) ?? []) {
    if (n >= CAP[prefix]) break;
    const cue = `${prefix}:${w}`;
    if (out.includes(cue)) continue;
    out.push(cue);
    n++;
  }
}

export function linkCues(url: string, anchor: string, ctx: LinkContext = {}, kinds: readonly string[] = CUE_KINDS): string[] {
  const out: string[] = [];
  if (kinds.includes('u')) {
    const start = url.indexOf('/', url.indexOf('//') + 2);
    let path = start < 0 ? '' : url.slice(start);
    const q = path.search(/[?#]/);
    if (q >= 0) path = path.slice(0, q);
    // The file name without its extension counts as a word of its own ('genindex', 'links').
    words(out, 'u', path.replace(/\.(html?|php|aspx?|jsp)$/i, ''));
  }
  if (kinds.includes('a')) words(out, 'a', anchor);
  if (ctx.around && kinds.includes('c')) words(out, 'c', ctx.around);
  if (ctx.title && kinds.includes('h')) words(out, 'h', ctx.title);
  if (ctx.path && kinds.includes('p')) out.push(`p:${ctx.path.toLowerCase()}`);
  return out;
}

/** Cues are stored with the page they queued as one space-separated string (cues hold no spaces). */
export const joinCues = (cues: readonly string[]): string => cues.join(' ');
export const splitCues = (s: string | null | undefined): string[] => (s ? s.split(' ') : []);
