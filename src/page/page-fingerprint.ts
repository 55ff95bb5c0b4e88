import { createHash } from 'node:crypto';
import type { FoundLinks } from './found-links.js';

/** What a re-read compares: whether the page changed (fingerprint) and by how much (text size). */
export interface PagePrint {
  /** 48 bits (a safe integer): equal for the same text and links */
  fingerprint: number;
  /** characters of the page's visible text, whitespace left out (bytes of UTF-8 pages) */
  textSize: number;
}

/**
 * The fingerprint of a page's content, fed as the parser goes: its visible text (scripts, styles
 * and markup are never fed) without whitespace, then its links in page order. So a new session
 * token in an attribute, a rotated script or a re-indented file is no change (where markup puts
 * whitespace is layout, not content), but an edited word or a link added is. Navigation counts:
 * a menu that changes is a change.
 *
 * FNV-1a (32 bits) over the characters as they stream, no copy: on the bench web's pages (68 KB
 * of text) joining the text and hashing it with SHA-1 cost as much as the parse. The print is
 * the hash and the low 16 bits of the text size: not made to resist an adversary, and an edit
 * that keeps the size meets the old hash by chance once in 2^32.
 */
export class ContentHash {
  private h = 0x811c9dc5;
  private size = 0;

  add(s: string): void {
    // `| 0`: the start value is above 2^31, and a loop begun on it ran in doubles (twice as slow).
    let h = this.h | 0;
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c <= 32) continue;
      h = Math.imul(h ^ c, 0x01000193);
      n++;
    }
    this.h = h;
    this.size += n;
  }

  /**
   * add() for bytes[start, end): a UTF-8 page's text, read from its bytes (what the parser reads
   * one per character) at half the cost of reading the parser's slices of its string.
   */
  addBytes(bytes: Uint8Array, start: number, end: number): void {
    let h = this.h | 0;
    let n = 0;
    for (let i = start; i < end; i++) {
      const c = bytes[i]!;
      if (c <= 32) continue;
      h = Math.imul(h ^ c, 0x01000193);
      n++;
    }
    this.h = h;
    this.size += n;
  }

  /** The page's text and then its links (each after a separator no text holds). */
  print(links: FoundLinks): PagePrint {
    const size = this.size;
    for (const l of links.internal) this.part(1, l.key);
    for (const l of links.external) this.part(2, l.key);
    for (const b of links.bad) this.part(3, b.raw);
    return { fingerprint: (this.h >>> 0) * 65536 + (size & 0xffff), textSize: size };
  }

  private part(kind: number, s: string): void {
    this.h = Math.imul(this.h ^ kind, 0x01000193);
    this.add(s);
  }
}

/** The print of text and links given whole (tests, and pages not parsed as they stream). */
export function pagePrint(text: string, links: FoundLinks): PagePrint {
  const h = new ContentHash();
  h.add(text);
  return h.print(links);
}

/** A page that is not HTML (a PDF, an image) is its bytes: any change to them is a change. */
export function bytesPrint(body: Uint8Array): PagePrint {
  return { fingerprint: createHash('sha1').update(body).digest().readUIntBE(0, 6), textSize: body.length };
}
