import { createHash } from 'node:crypto';
import type { FoundLinks } from '../store/commit.js';
import type { PageText } from './page-text.js';

/** What a re-read compares: whether the page changed (fingerprint) and by how much (text size). */
export interface PagePrint {
  /** 48 bits of SHA-1 (a safe integer): equal for the same text and set of links */
  fingerprint: number;
  /** characters of the page's text (title, headings, body; whitespace collapsed, navigation left out) */
  textSize: number;
}

/**
 * The fingerprint of a page's content: its visible text and the set of its links (sorted, so
 * moving a link is no change but adding one is). Markup, scripts, styles and navigation text are
 * left out, so a new session token or a rotated ad is not a change. The body counts up to the
 * text pass's cap (page-text.ts): an edit past it, with no link change, goes unseen.
 */
export function pagePrint(text: PageText, links: FoundLinks): PagePrint {
  const keys = [...links.internal.map((l) => 'i ' + l.key), ...links.external.map((l) => 'e ' + l.key), ...links.bad.map((b) => 'b ' + b.raw)].sort();
  const h = createHash('sha1');
  h.update(text.title).update('\0').update(text.headings).update('\0').update(text.body).update('\0').update(keys.join('\n'));
  return { fingerprint: h.digest().readUIntBE(0, 6), textSize: text.title.length + text.headings.length + text.body.length };
}

/** A page that is not HTML (a PDF, an image) is its bytes: any change to them is a change. */
export function bytesPrint(body: Uint8Array): PagePrint {
  return { fingerprint: createHash('sha1').update(body).digest().readUIntBE(0, 6), textSize: body.length };
}
