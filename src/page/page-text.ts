import { sliceWhole } from '../markup/whole-chars.js';

/** A page's text by block, as full-text search indexes it (src/search): each block is ranked with its own weight. */
export interface PageText {
  title: string;
  /** h1–h6, one after another */
  headings: string;
  /** every other visible text (script, style and template excluded), cut to MAX_BODY_TEXT */
  body: string;
}

/**
 * Body text kept per page, in characters. Bounds the index and the work per page: a search hit
 * on a page is almost always in its first 64 KiB, and the bench web's pages (mean 91 KB of HTML)
 * stay under it.
 */
export const MAX_BODY_TEXT = 64 * 1024;
const MAX_TITLE = 1024;
const MAX_HEADINGS = 8 * 1024;
const HEADING = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * Collects a page's text blocks from a streaming parser's events (extract.ts): the first <title>,
 * headings, and the rest as body. The caller passes only visible text. Whitespace is collapsed as
 * text arrives, and a block stops growing at its cap, so a huge page costs at most the caps.
 */
export class PageTextCollector {
  private title = '';
  private headings = '';
  private body = '';
  private inTitle = false;
  private titleDone = false;
  private heading = 0;

  constructor(private maxBody = MAX_BODY_TEXT) {}

  open(name: string, breaks: boolean): void {
    if (name === 'title' && !this.titleDone) this.inTitle = true;
    else if (HEADING.has(name)) this.heading++;
    if (breaks) this.separate();
  }

  close(name: string, breaks: boolean): void {
    if (name === 'title' && this.inTitle) {
      this.inTitle = false;
      this.titleDone = true;
    } else if (HEADING.has(name)) this.heading = Math.max(0, this.heading - 1);
    if (breaks) this.separate();
  }

  /** Whether text now would be kept: the caller decodes a chunk only then. */
  wants(): boolean {
    if (this.inTitle) return this.title.length <= MAX_TITLE;
    if (this.heading > 0) return this.headings.length <= MAX_HEADINGS;
    return this.body.length <= this.maxBody;
  }

  add(chunk: string): void {
    const t = chunk.replace(/\s+/g, ' ');
    if (this.inTitle) this.title += t;
    else if (this.heading > 0) this.headings += t;
    else this.body += t;
  }

  result(): PageText {
    return { title: cut(this.title, MAX_TITLE), headings: cut(this.headings, MAX_HEADINGS), body: cut(this.body, this.maxBody) };
  }

  // An element that breaks a line parts words: '<h1>One</h1><h2>Two</h2>' is 'One Two'.
  private separate(): void {
    if (this.heading > 0) this.headings += ' ';
    else if (!this.inTitle) this.body += ' ';
  }
}

/** Collapsed spaces trimmed, cut to max characters without leaving half a surrogate pair. */
function cut(s: string, max: number): string {
  const out = s.replace(/ {2,}/g, ' ').trim();
  if (out.length <= max) return out;
  return sliceWhole(out, max).trimEnd();
}
