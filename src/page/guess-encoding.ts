import { isAscii as nativeIsAscii } from 'node:buffer';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { ENCODING_BY_LABEL } from './encoding-labels.js';

/** True when every byte is 7-bit (then any ASCII-compatible encoding decodes it the same). */
export function isAscii(bytes: Uint8Array): boolean {
  return nativeIsAscii(bytes);
}

/**
 * Counts well-formed multi-byte UTF-8 sequences and invalid bytes (overlongs, surrogates and
 * > U+10FFFF are invalid). A sequence cut off by the end of the buffer is not counted as invalid:
 * downloads are often truncated at a size cap.
 */
export function utf8Stats(bytes: Uint8Array): { multiByte: number; invalid: number } {
  let multiByte = 0;
  let invalid = 0;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    // Allowed range of the second byte (the others are always 0x80–0xBF).
    const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    let n = 1;
    while (n < len && i + n < bytes.length) {
      const c = bytes[i + n]!;
      if (n === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) break;
      n++;
    }
    if (len > 0 && n === len) multiByte++;
    else if (len === 0 || i + n < bytes.length) invalid++; // else: cut off at the end, not an error
    i += n;
  }
  return { multiByte, invalid };
}

// The five WHATWG single-byte Cyrillic encodings, as iconv-lite names.
const CYRILLIC: Record<string, string> = {
  'windows-1251': 'windows1251',
  'koi8-r': 'koi8r',
  ibm866: 'cp866',
  'iso-8859-5': 'iso88595',
  'x-mac-cyrillic': 'maccyrillic',
};

/** The ten most frequent lowercase letters in Russian and Bulgarian text (~60% of letters). */
const COMMON = new Set([...'оеаинтсрвл'].map((c) => c.charCodeAt(0)));
/** Non-letters that are normal in Cyrillic text: « » — – … № curly quotes, NBSP, © ® ° · •. */
const NEUTRAL = new Set([...'«»—–…№“”„‘’\u00a0©®°·•'].map((c) => c.charCodeAt(0)));

const isUpperCyr = (c: number): boolean => (c >= 0x400 && c <= 0x42f) || c === 0x490;
const isLowerCyr = (c: number): boolean => (c >= 0x430 && c <= 0x45f) || c === 0x491;
const isLatin = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;

interface CyrillicScore {
  encoding: string;
  score: number;
  /** Whether the decoded text reads like real Cyrillic prose (see `plausible`). */
  plausible: boolean;
  letters: number;
}

/**
 * Decodes `bytes` as one Cyrillic encoding and rates the non-ASCII characters. The encodings
 * differ mainly in where they put upper vs lower case and which byte ranges hold letters, so a
 * wrong guess shows up as: mostly uppercase (koi8-r ↔ windows-1251 swap the cases), uppercase in
 * mid-word, rare letters instead of о е а и н т с р в л, or box-drawing/symbol characters.
 */
function scoreCyrillic(bytes: Uint8Array, encoding: string): CyrillicScore {
  const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), CYRILLIC[encoding]!);
  let nonAscii = 0, lower = 0, upper = 0, common = 0, rare = 0, upperMidWord = 0, other = 0, nextToLatin = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    nonAscii++;
    const prev = i > 0 ? text.charCodeAt(i - 1) : 0x20;
    if (isLowerCyr(c)) {
      lower++;
      if (COMMON.has(c)) common++;
      else if (c >= 0x450) rare++;
    } else if (isUpperCyr(c)) {
      upper++;
      if (c < 0x410) rare++;
      if (isLowerCyr(prev)) upperMidWord++;
    } else {
      if (!NEUTRAL.has(c)) other++;
      continue;
    }
    // Latin-1 text read as Cyrillic gives "cafй": lone "letters" glued to ASCII letters.
    if (isLatin(prev) || (i + 1 < text.length && isLatin(text.charCodeAt(i + 1)))) nextToLatin++;
  }
  const letters = lower + upper;
  // Letters outside а–я/А–Я (ё, Ukrainian і ї є ґ, Serbian ђ љ …) are real but rarer: half credit,
  // so that e.g. windows-1251 "П" (+0.5, uppercase) isn't beaten by x-mac-cyrillic "ќ" (+1).
  const score =
    common * 2 + (lower - common) + upper * 0.5 - rare * 0.5 - upperMidWord * 2 - other * 2;
  // Thresholds from the chardet corpus: real Cyrillic text measured letters ≥ 0.99 of non-ASCII,
  // lowercase ≥ 0.78, common ≥ 0.63, next-to-Latin ≤ 0.01. Other scripts read as Cyrillic have
  // fewer common letters (Hebrew 0.48, Greek 0.49, Thai 0.53, CJK ≤ 0.42; one 7-letter Japanese
  // sample reached 0.57, hence MIN_LETTERS) or are glued to Latin letters (Latin-1/2 text).
  const plausible =
    letters >= 0.8 * nonAscii && lower >= 0.6 * letters && common >= 0.55 * lower && nextToLatin <= 0.2 * letters;
  return { encoding, score, plausible, letters };
}

/** chardet's verdicts that we'd accept as a guess (utf-8/utf-16 are decided elsewhere). */
function chardetCandidates(bytes: Uint8Array, canDecode: (encoding: string) => boolean): string[] {
  const out: string[] = [];
  for (const match of chardet.analyse(bytes)) {
    const name = ENCODING_BY_LABEL.get(match.name.toLowerCase());
    if (name && canDecode(name) && !/^(utf-|replacement)/.test(name) && !out.includes(name)) out.push(name);
  }
  return out;
}

/** Below this many Cyrillic letters, a Cyrillic reading also needs chardet to hint at Cyrillic. */
const MIN_LETTERS = 20;

/**
 * Best guess for bytes that are neither ASCII nor UTF-8, or null. chardet alone is weak on
 * Cyrillic (it can't even name ibm866 or x-mac-cyrillic), so every Cyrillic single-byte reading
 * is scored and the best wins when it reads like real text; otherwise chardet's top answer.
 * The scoring runs first because it is ~15x cheaper than chardet and settles most Cyrillic pages.
 */
export function guessEncoding(bytes: Uint8Array, canDecode: (encoding: string) => boolean): string | null {
  const best = Object.keys(CYRILLIC)
    .map((encoding) => scoreCyrillic(bytes, encoding))
    .reduce((a, b) => (b.score > a.score ? b : a));
  if (best.plausible && best.letters >= MIN_LETTERS) return best.encoding;
  const candidates = chardetCandidates(bytes, canDecode);
  if (best.plausible && candidates.slice(0, 3).some((name) => name in CYRILLIC)) return best.encoding;
  return candidates[0] ?? null;
}
