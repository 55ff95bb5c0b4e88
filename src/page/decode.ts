import iconv from 'iconv-lite';
import { ENCODING_BY_LABEL } from './encoding-labels.js';
import { isUtf8 } from 'node:buffer';
import { guessEncoding, isAscii, utf8Stats } from './guess-encoding.js';

export type EncodingSource = 'bom' | 'http' | 'meta' | 'guess' | 'default';

export interface Decoded {
  text: string;
  /** Canonical WHATWG name, lowercase (e.g. 'utf-8', 'windows-1251', 'koi8-r'). */
  encoding: string;
  source: EncodingSource;
}

/** WHATWG label → canonical lowercase name, or null if not a known label. */
export function canonicalEncoding(label: string): string | null {
  // The Encoding Standard strips ASCII whitespace only, and matches ASCII case-insensitively.
  return ENCODING_BY_LABEL.get(label.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase()) ?? null;
}

/** charset parameter of a Content-Type header value, canonicalized, or null. */
export function charsetFromContentType(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const m = /;\s*charset\s*=\s*("([^"]*)"?|[^;,\s]*)/i.exec(contentType);
  if (!m) return null;
  return canonicalEncoding(m[2] ?? m[1] ?? '');
}

// WHATWG names → iconv-lite names. iso-2022-jp is missing on purpose: iconv-lite can't decode it.
const ICONV_NAME: Record<string, string> = {
  ibm866: 'cp866',
  'iso-8859-8-i': 'iso88598', // same bytes as iso-8859-8; only the bidi direction differs
  'koi8-r': 'koi8r',
  'koi8-u': 'koi8u',
  macintosh: 'macintosh',
  'x-mac-cyrillic': 'maccyrillic',
  gbk: 'gb18030', // the WHATWG gbk decoder *is* the gb18030 decoder
  gb18030: 'gb18030',
  big5: 'big5hkscs', // WHATWG big5 includes the HKSCS extensions
  'euc-jp': 'eucjp',
  shift_jis: 'shiftjis', // iconv-lite's shiftjis is windows-31j, as in WHATWG
  'euc-kr': 'cp949', // WHATWG euc-kr is windows-949
  'utf-16le': 'utf16le',
  'utf-16be': 'utf16be',
};
for (const name of ENCODING_BY_LABEL.values()) {
  // iso-8859-N, windows-NNNN: iconv-lite uses the same name without dashes.
  if (/^(iso-8859-\d+|windows-\d+)$/.test(name) && !(name in ICONV_NAME)) ICONV_NAME[name] = name.replace(/-/g, '');
}

const SPECIAL = new Set(['utf-8', 'replacement', 'x-user-defined']);

/** Whether decodeBytes can decode this canonical name. */
export function canDecode(encoding: string): boolean {
  return SPECIAL.has(encoding) || encoding in ICONV_NAME;
}

const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Decode bytes with a canonical WHATWG name. A BOM is not stripped (decodeHtml does that).
 * Single-byte legacy encodings go through iconv-lite: Node 20's TextDecoder gets windows-1252
 * 0x80–0x9F wrong. Known small gap: iconv-lite yields U+FFFD for the five bytes windows-1252
 * leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) where WHATWG maps them to C1 controls.
 */
export function decodeBytes(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'utf-8') return utf8Decoder.decode(bytes);
  if (encoding === 'replacement') return bytes.length > 0 ? '\uFFFD' : '';
  if (encoding === 'x-user-defined') {
    let out = '';
    for (const b of bytes) out += String.fromCharCode(b < 0x80 ? b : 0xf780 + b - 0x80);
    return out;
  }
  const iconvName = ICONV_NAME[encoding];
  if (!iconvName) throw new Error(`cannot decode encoding: ${encoding}`);
  const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), iconvName, { stripBOM: false });
  // iconv-lite's UTF-16 keeps a lone surrogate; WHATWG's decoder gives U+FFFD. Kept, it is stored
  // as bytes that are not UTF-8 and comes back as three U+FFFD.
  return encoding.startsWith('utf-16') ? text.toWellFormed() : text;
}

// ---------------------------------------------------------------------------------------------
// HTML "prescan a byte stream to determine its encoding"
// (https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding)

const isSpace = (b: number): boolean => b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
const isAlpha = (b: number): boolean => (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a;
const lower = (b: number): number => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/** Thrown when the scan runs off the end of the window: the spec then gives no result. */
class EndOfInput extends Error {}

class Scanner {
  pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  at(i = this.pos): number {
    if (i >= this.bytes.length) throw new EndOfInput();
    return this.bytes[i]!;
  }

  startsWith(ascii: string, caseInsensitive = false): boolean {
    if (this.pos + ascii.length > this.bytes.length) return false;
    for (let i = 0; i < ascii.length; i++) {
      const b = this.bytes[this.pos + i]!;
      if ((caseInsensitive ? lower(b) : b) !== ascii.charCodeAt(i)) return false;
    }
    return true;
  }

  /** Moves to the first occurrence of `ascii` at or after `from`, or throws at the end. */
  skipTo(ascii: string, from: number): void {
    this.pos = from;
    while (!this.startsWith(ascii)) {
      this.at();
      this.pos++;
    }
  }

  /** The spec's "get an attribute"; null when the tag ends first. Bytes become chars 1:1. */
  attribute(): { name: string; value: string } | null {
    while (isSpace(this.at()) || this.at() === 0x2f) this.pos++;
    if (this.at() === 0x3e) return null;
    let name = '';
    let value = '';
    for (;;) {
      const b = this.at();
      if (b === 0x3d && name !== '') {
        this.pos++;
        break;
      }
      if (isSpace(b)) {
        while (isSpace(this.at())) this.pos++;
        if (this.at() !== 0x3d) return { name, value };
        this.pos++;
        break;
      }
      if (b === 0x2f || b === 0x3e) return { name, value };
      name += String.fromCharCode(lower(b));
      this.pos++;
    }
    while (isSpace(this.at())) this.pos++;
    const q = this.at();
    if (q === 0x22 || q === 0x27) {
      for (this.pos++; this.at() !== q; this.pos++) value += String.fromCharCode(lower(this.at()));
      this.pos++;
      return { name, value };
    }
    if (q === 0x3e) return { name, value };
    for (; !isSpace(this.at()) && this.at() !== 0x3e; this.pos++) value += String.fromCharCode(lower(this.at()));
    return { name, value };
  }

  /** Attributes of a <meta> tag → the encoding it declares, per the spec's rules, or null. */
  meta(): string | null {
    const seen = new Set<string>();
    let gotPragma = false;
    let needPragma: boolean | null = null;
    let charset: string | null = null;
    for (let attr = this.attribute(); attr; attr = this.attribute()) {
      if (seen.has(attr.name)) continue;
      seen.add(attr.name);
      if (attr.name === 'http-equiv' && attr.value === 'content-type') gotPragma = true;
      else if (attr.name === 'content') {
        const fromContent = charsetFromMetaContent(attr.value);
        if (fromContent && charset === null) {
          charset = fromContent;
          needPragma = true;
        }
      } else if (attr.name === 'charset') {
        charset = canonicalEncoding(attr.value);
        needPragma = false;
      }
    }
    if (needPragma === null || (needPragma && !gotPragma) || charset === null) return null;
    if (charset === 'utf-16le' || charset === 'utf-16be') return 'utf-8';
    if (charset === 'x-user-defined') return 'windows-1252';
    return charset;
  }
}

/** The spec's "extracting a character encoding from a meta element" (content="...; charset=x"). */
function charsetFromMetaContent(s: string): string | null {
  const m = /charset[\t\n\f\r ]*=[\t\n\f\r ]*(?:"([^"]*)"|'([^']*)'|(["'])|([^\t\n\f\r ;]*))/i.exec(s);
  // An unmatched quote means no encoding (an empty value fails the label lookup).
  if (!m || m[3] !== undefined) return null;
  return canonicalEncoding(m[1] ?? m[2] ?? m[4] ?? '');
}

/**
 * The HTML prescan: finds a <meta charset> / <meta http-equiv=content-type content="...charset=">
 * while skipping comments, other tags' attributes and `<!`/`</`/`<?` constructs. Returns a
 * canonical name or null. utf-16* becomes utf-8 and x-user-defined windows-1252, per spec.
 *
 * `limit`: the spec says 1024 bytes, but browsers also honour a later <meta> in <head> (the tree
 * builder "changes the encoding" and re-decodes), and html5lib's tests expect metas found after
 * up to 8 KB of comments/scripts to win. A crawler has no re-decode step, so it scans further
 * instead: 8192 bytes covers those cases (all but one html5lib test at offset 8317) while
 * staying cheap.
 */
export function prescan(bytes: Uint8Array, limit = 8192): string | null {
  const s = new Scanner(bytes.subarray(0, limit));
  try {
    for (; ; s.pos++) {
      s.at();
      if (s.startsWith('<!--')) {
        // '-->' may share its dashes with '<!--', so `<!-->` is a complete comment.
        s.skipTo('-->', s.pos + 2);
        s.pos += 2;
      } else if (s.startsWith('<meta', true) && (isSpace(s.at(s.pos + 5)) || s.at(s.pos + 5) === 0x2f)) {
        s.pos += 5;
        const found = s.meta();
        if (found) return found;
      } else if (s.at() === 0x3c && (isAlpha(s.at(s.pos + 1)) || (s.at(s.pos + 1) === 0x2f && isAlpha(s.at(s.pos + 2))))) {
        while (!isSpace(s.at()) && s.at() !== 0x3e) s.pos++;
        while (s.attribute());
      } else if (s.startsWith('<!') || s.startsWith('</') || s.startsWith('<?')) {
        s.skipTo('>', s.pos + 2);
      }
    }
  } catch (err) {
    if (err instanceof EndOfInput) return null;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------

const BOMS: ReadonlyArray<[number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/** How many bytes the guesser looks at: enough for statistics, bounded cost on huge pages. */
const GUESS_SAMPLE = 64 * 1024;

/**
 * The encoding decision: BOM → HTTP charset → <meta> prescan → guess → defaultEncoding.
 * A declared utf-8 that the bytes contradict is treated as undeclared (common on legacy sites
 * whose server or template claims utf-8); declarations we cannot decode are skipped.
 */
export function decodeHtml(bytes: Uint8Array, contentType?: string, defaultEncoding = 'windows-1252'): Decoded {
  const { encoding, source, start } = detectEncoding(bytes, contentType, defaultEncoding);
  return { text: decodeBytes(bytes.subarray(start), encoding), encoding, source };
}

/** decodeHtml's choice of encoding; `start`: where the text begins (after a BOM). */
export interface Detected {
  encoding: string;
  source: EncodingSource;
  start: number;
}

export function detectEncoding(bytes: Uint8Array, contentType?: string, defaultEncoding = 'windows-1252'): Detected {
  for (const [bom, encoding] of BOMS) {
    if (bom.every((b, i) => bytes[i] === b)) return { encoding, source: 'bom', start: bom.length };
  }
  const result = (encoding: string, source: EncodingSource): Detected => ({ encoding, source, start: 0 });

  // A utf-8 declaration the bytes contradict is ignored (a later declaration may still be right).
  const usable = (encoding: string | null): encoding is string =>
    encoding !== null && canDecode(encoding) && (encoding !== 'utf-8' || looksLikeUtf8(bytes));
  const http = charsetFromContentType(contentType);
  if (usable(http)) return result(http, 'http');
  const meta = prescan(bytes);
  if (usable(meta)) return result(meta, 'meta');

  const fallback = canonicalEncoding(defaultEncoding);
  const byDefault = (): Detected => result(fallback && canDecode(fallback) ? fallback : 'windows-1252', 'default');
  if (isAscii(bytes)) return byDefault();
  if (looksLikeUtf8(bytes)) return result('utf-8', 'guess');
  const guessed = guessEncoding(bytes.subarray(0, GUESS_SAMPLE), canDecode);
  return guessed ? result(guessed, 'guess') : byDefault();
}

/**
 * Valid UTF-8, tolerating a sequence cut off at the end (truncated downloads) and rare stray
 * bytes in otherwise clearly UTF-8 text (the ratio chardet's own UTF-8 recogniser accepts).
 */
function looksLikeUtf8(bytes: Uint8Array): boolean {
  if (isUtf8(bytes)) return true; // native and fast: the common case
  const { multiByte, invalid } = utf8Stats(bytes);
  return invalid === 0 || multiByte > invalid * 10;
}
