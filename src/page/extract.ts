import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { Parser } from 'htmlparser2';
import { PageTextCollector, type PageText } from './page-text.js';
import type { ContentHash } from './page-fingerprint.js';
import { sliceWhole } from '../markup/whole-chars.js';

export type LinkTag = 'a' | 'area' | 'frame' | 'iframe';
/**
 * `path` and `around` only with the `context` option: the link's place in the page (its three
 * nearest enclosing elements, each with its first class: 'div.related>ul>li') and the text just
 * before it in its block. Topic-focused crawls score links by them (src/schedule/links/cues.ts).
 */
export interface RawLink { href: string; tag: LinkTag; text: string; rel: string; path?: string; around?: string }
export interface Extracted {
  base: string | null;
  links: RawLink[];
  refresh: string | null;
  /** the first <title>'s text, whitespace collapsed, cut like anchor texts; null without one */
  title: string | null;
  /** the page's text blocks without its navigation, when asked for (ExtractOptions.text) */
  text: PageText | null;
}

// Text here is not page text. Template content is inert (not in document.links), so its links are
// skipped too. <noscript> text IS kept: a crawler runs no scripts, so it sees that content.
const HIDDEN = new Set(['script', 'style', 'template']);
// Elements that break a line when rendered: '<a><div>Title</div><div>Sub</div></a>' reads
// 'Title Sub', not 'TitleSub' (textContent would glue the words).
const BREAKS = new Set([
  'br', 'p', 'div', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'table', 'tr', 'td', 'th', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main',
  'figure', 'figcaption', 'blockquote', 'pre', 'hr', 'address', 'details', 'summary',
]);

export interface ExtractOptions {
  /** Anchor texts are cut to this many characters. */
  maxText?: number;
  /**
   * Also collect the page's text blocks (full-text search, topic-focused crawls), the body cut to
   * this many characters. Navigation is left out — text inside nav, header, footer, aside and
   * elements whose class or id names a menu, sidebar, header or footer — as the focused-crawling
   * article removes the parts all pages of a site share: a search for 'download' should not
   * find every page of a site whose menu says so.
   */
  text?: { maxBody: number };
  /** Also each link's tag path and the text before it (ordered and topic-focused crawls). */
  context?: boolean;
  /** With context: the text before each link too (default true); decoding every text chunk for it costs. */
  around?: boolean;
  /** Give up (MarkupLimit) after this long; PARSE_BUDGET_MS by default. */
  budgetMs?: number;
  /** Feed the visible text, as the tokenizer gives it (UTF-8 pages: undecoded bytes, read from the page's bytes), to this page fingerprint. */
  hash?: ContentHash;
}

/**
 * htmlparser2 keeps its open elements in an array it shifts at the front, so each element costs as
 * much as the depth it opens at: a million unclosed <div> took 6 minutes. Browsers stop nesting
 * at 512 (Blink); past this a page is refused, and past the time budget too (what depth does not
 * catch, such as stray end tags searched through a deep stack).
 */
export const MAX_NESTING = 1024;
export const PARSE_BUDGET_MS = 10_000;
const SLICE = 64 * 1024;

/** A page whose markup costs too much to parse: the message is the reason stored for it. */
export class MarkupLimit extends Error {}

const NAV_ELEMENTS = new Set(['nav', 'header', 'footer', 'aside']);
const NAV_NAMES = /(?:^|[-_\s])(?:nav|navbar|navigation|sidebar|sphinxsidebar|menu|footer|header|breadcrumbs?|related|toc)(?:$|[-_\s])/i;

/** Characters of text before a link kept as its context. */
const AROUND = 60;

/** An element as its tag path names it: 'tag', or 'tag.class' with its first class. */
function withClass(name: string, cls: string | undefined): string {
  const c = cls?.trim();
  if (!c) return name;
  const space = c.search(/\s/); // found, not split: every element of a page with context comes here
  return `${name}.${space < 0 ? c : c.slice(0, space)}`;
}

/** A link's tag path: the three elements it is in, innermost last (`stack` ends with the link's own). */
function tagPath(stack: readonly string[]): string {
  const n = stack.length;
  return n >= 4 ? `${stack[n - 4]}>${stack[n - 3]}>${stack[n - 2]}` : stack.slice(0, -1).join('>');
}

/**
 * Collect a[href], area[href], frame[src], iframe[src] in document order, the first <base href>
 * and the first <meta http-equiv=refresh> target, in one streaming pass (no DOM).
 *
 * `page` is decoded text, or a UTF-8 page's bytes. Bytes are tokenized one per character
 * (latin1), not decoded: decoding a whole page to UTF-16 cost as much as a third of tokenizing
 * it, and every byte the tokenizer acts on is ASCII, which UTF-8 leaves as it is. Only what is
 * kept (hrefs, anchor texts, a few attributes) is decoded: UTF-8 first, then character
 * references (left alone by the tokenizer in this mode, since a reference decoded into a byte
 * string would be read as bytes again).
 */
export function extractLinks(page: string | Uint8Array, opts: ExtractOptions = {}): Extracted {
  const maxText = opts.maxText ?? 300;
  const bytes = typeof page === 'string' ? null : Buffer.from(page.buffer, page.byteOffset, page.byteLength);
  // What the tokenizer gives, as text: identity when it decoded the page itself.
  const attr = bytes ? (v: string) => decodeHTMLAttribute(utf8(v)) : (v: string) => v;
  const text = bytes ? (v: string) => decodeHTML(utf8(v)) : (v: string) => v;
  const links: RawLink[] = [];
  let base: string | null = null;
  let refresh: string | null = null;
  let hidden = 0; // depth inside HIDDEN elements
  let anchor: { link: RawLink | null; text: string; alt: string } | null = null;
  // Only when asked: collecting text decodes every text chunk, which link extraction skips.
  const blocks = opts.text ? new PageTextCollector(opts.text.maxBody) : null;
  const context = opts.context ?? false;
  const around = context && (opts.around ?? true);
  const stack: string[] = []; // open elements, 'tag' or 'tag.class' (context only)
  let recent = ''; // text of the current block outside links (context only)
  let nav = 0; // > 0: depth inside a navigation element (text only)
  // The page's title (the map shows it): the first <title> only, outside <svg> (whose <title> is a tooltip).
  let title: string | null = null;
  let inTitle = false;
  let svg = 0;
  const hash = opts.hash;
  let depth = 0; // the parser's open elements

  // Whitespace is collapsed as text arrives, and appending stops past the cap, so an unclosed
  // <a> costs at most maxText characters.
  const append = (buf: string, chunk: string): string =>
    buf.length > maxText ? buf : (buf + chunk).replace(/\s+/g, ' ').replace(/^ /, '').slice(0, maxText + 1);

  const endAnchor = (): void => {
    if (anchor?.link) anchor.link.text = cap(anchor.text.trim() || anchor.alt.trim(), maxText);
    anchor = null;
  };

  const parser = new Parser(
    {
      onopentag(name, raw) {
        if (++depth > MAX_NESTING) throw new MarkupLimit(`too-deep: markup nested more than ${MAX_NESTING} elements`);
        if (context) {
          stack.push(withClass(name, raw.class));
          if (BREAKS.has(name)) recent = '';
        }
        if (blocks && (nav > 0 || NAV_ELEMENTS.has(name) || NAV_NAMES.test(raw.class ?? '') || NAV_NAMES.test(raw.id ?? ''))) nav++;
        if (name === 'svg') svg++;
        else if (name === 'title' && title === null && svg === 0) {
          inTitle = true;
          title = '';
        }
        if (HIDDEN.has(name)) hidden++;
        if (hidden > 0) return;
        blocks?.open(name, BREAKS.has(name));
        if (anchor && BREAKS.has(name)) anchor.text = append(anchor.text, ' ');
        if (!LINKED.has(name)) return;
        const attrs = bytes ? decodeAttributes(raw, attr) : raw;
        switch (name) {
          case 'a': {
            endAnchor(); // <a> never nests: a new one ends the previous, as the HTML parser does
            const link: RawLink | null = attrs.href === undefined ? null : { href: attrs.href, tag: name, text: '', rel: relOf(attrs.rel) };
            if (link && context) {
              link.path = tagPath(stack);
              link.around = recent.slice(-AROUND).trim();
            }
            if (link) links.push(link);
            anchor = { link, text: '', alt: '' };
            break;
          }
          case 'area':
            if (attrs.href !== undefined) {
              links.push({ href: attrs.href, tag: name, text: cap(append('', attrs.alt ?? '').trim(), maxText), rel: relOf(attrs.rel) });
            }
            break;
          case 'frame':
          case 'iframe':
            if (attrs.src !== undefined) links.push({ href: attrs.src, tag: name, text: '', rel: '' });
            break;
          case 'img':
            if (anchor && attrs.alt) anchor.alt = append(anchor.alt, ` ${attrs.alt}`);
            break;
          case 'base':
            if (base === null && attrs.href !== undefined) base = attrs.href;
            break;
          case 'meta':
            if (refresh === null && attrs['http-equiv']?.trim().toLowerCase() === 'refresh') {
              refresh = refreshTarget(attrs.content ?? '');
            }
            break;
        }
      },
      ontext(chunk) {
        if (inTitle) title = append(title!, text(chunk));
        if (hidden > 0) return;
        // Raw: decoding every chunk would cost the crawl a third of its speed. A UTF-8 page's chunk
        // is its bytes just before the parser's end index, read there (page-fingerprint.ts).
        if (bytes) hash?.addBytes(bytes, parser.endIndex + 1 - chunk.length, parser.endIndex + 1);
        else hash?.add(chunk);
        const wanted = nav === 0 && blocks?.wants() ? text(chunk) : null;
        if (anchor) anchor.text = append(anchor.text, wanted ?? text(chunk));
        else if (around) recent = (recent + (wanted ?? text(chunk))).replace(/\s+/g, ' ').slice(-AROUND * 2);
        if (wanted !== null) blocks!.add(wanted);
      },
      onclosetag(name) {
        depth--;
        if (context) {
          stack.pop();
          if (BREAKS.has(name)) recent = '';
        }
        if (nav > 0) nav--;
        if (name === 'title') inTitle = false;
        else if (name === 'svg') svg = Math.max(0, svg - 1);
        if (HIDDEN.has(name)) return void (hidden = Math.max(0, hidden - 1));
        if (hidden === 0) blocks?.close(name, BREAKS.has(name));
        if (name === 'a' && hidden === 0) endAnchor();
        else if (anchor && hidden === 0 && BREAKS.has(name)) anchor.text = append(anchor.text, ' ');
      },
    },
    { decodeEntities: !bytes },
  );
  // In slices, so that the time spent is checked as it goes. A UTF-8 page's slices are each made
  // from its bytes: a slice of one string of the whole page is read through that string, every
  // character, and tokenizing a bench-web page took a fifth longer.
  const t0 = performance.now();
  const budget = opts.budgetMs ?? PARSE_BUDGET_MS;
  const length = bytes ? bytes.length : (page as string).length;
  for (let at = 0; at < length; at += SLICE) {
    parser.write(bytes ? bytes.toString('latin1', at, at + SLICE) : (page as string).slice(at, at + SLICE));
    if (performance.now() - t0 > budget) throw new MarkupLimit(`parse-timeout: markup took more than ${budget} ms to parse`);
  }
  parser.end();
  endAnchor();
  return { base, links, refresh, title: title === null ? null : cap((title as string).trim(), maxText), text: blocks?.result() ?? null };
}

// The tags whose attributes are read.
const LINKED = new Set(['a', 'area', 'frame', 'iframe', 'img', 'base', 'meta']);

function decodeAttributes(raw: Record<string, string>, decode: (v: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in raw) out[k] = decode(raw[k]!);
  return out;
}

// Bytes held one per character back to text; invalid sequences become U+FFFD, as TextDecoder does.
const utf8 = (s: string): string => (isAsciiString(s) ? s : Buffer.from(s, 'latin1').toString('utf8'));
const NON_ASCII = /[^\x00-\x7f]/;
const isAsciiString = (s: string): boolean => !NON_ASCII.test(s);

function relOf(rel: string | undefined): string {
  return (rel ?? '').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Cut to max characters without leaving half a surrogate pair. */
function cap(s: string, max: number): string {
  if (s.length <= max) return s;
  return sliceWhole(s, max).trimEnd();
}

/**
 * The URL of a refresh content value ("5; url='x'", "0;URL=x", "3, x") by the HTML spec's shared
 * declarative refresh steps: a time must come first ("url=x" alone does nothing in browsers).
 * Null when there is no URL.
 */
function refreshTarget(content: string): string | null {
  const m = /^\s*[\d.]+(?:(?=[;,\s])\s*[;,]?\s*(?:url\s*=\s*)?(.*))?$/is.exec(content);
  let url = m?.[1]?.trim() ?? '';
  const q = url[0];
  if (q === '"' || q === "'") {
    const end = url.indexOf(q, 1);
    url = url.slice(1, end < 0 ? undefined : end).trim();
  }
  return url === '' ? null : url;
}
