// Measured: html5lib prescan 81/82 (1 known exception, below);
// chardet corpus Cyrillic 121/121 (windows-1251 35/35, iso-8859-5 31/31, koi8-r 20/20,
// ibm866 18/18, x-mac-cyrillic 17/17). The 18 IBM855 files are left out: IBM855 is not a
// WHATWG encoding, so no browser (and no decodeHtml result) can name it.
import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import {
  canonicalEncoding,
  charsetFromContentType,
  decodeBytes,
  decodeHtml,
  prescan,
} from '../../src/page/decode.js';
import { shared } from '../helpers/shared.js';

const testdata = (path: string): URL => shared(`testdata/${path}`);

describe('html5lib encoding prescan tests', () => {
  // Cases expected to fail, with the reason; asserted below so the list can't rot.
  const EXCEPTIONS: Record<string, string> = {
    'tests1.dat#53': 'the only <meta> starts at byte 8317, beyond the 8192-byte prescan window',
  };

  const cases = ['tests1.dat', 'tests2.dat', 'test-yahoo-jp.dat'].flatMap((file) => {
    const data = readFileSync(testdata(`html5lib-encoding/${file}`)).toString('latin1');
    return data
      .split('#data\n')
      .slice(1)
      .map((record, i) => {
        const at = record.lastIndexOf('#encoding\n');
        const doc = record.slice(0, at).replace(/\n$/, '');
        const label = record.slice(at + '#encoding\n'.length).split('\n')[0]!;
        return { id: `${file}#${i}`, bytes: Buffer.from(doc, 'latin1'), expected: canonicalEncoding(label) };
      });
  });

  it('parses all 82 cases', () => {
    expect(cases).toHaveLength(82);
    expect(cases.every((c) => c.expected !== null)).toBe(true);
  });

  it.each(cases)('$id', ({ id, bytes, expected }) => {
    // The two BOM cases test the step before the prescan ("a BOM overrides <meta>"): run the
    // full decision for them.
    const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    const got = hasBom ? decodeHtml(bytes).encoding : prescan(bytes);
    // windows-1252 is the HTML default: it means "no usable declaration".
    const pass = expected === 'windows-1252' ? got === null || got === 'windows-1252' : got === expected;
    expect(pass, `prescan gave ${got}, expected ${expected}`).toBe(!(id in EXCEPTIONS));
  });
});

describe('chardet corpus: undeclared Cyrillic is guessed right', () => {
  // chardet folder names → WHATWG name and iconv-lite name (the reference decoder).
  const ENCODINGS: Record<string, [string, string]> = {
    'windows-1251': ['windows-1251', 'windows1251'],
    'koi8-r': ['koi8-r', 'koi8r'],
    ibm866: ['ibm866', 'cp866'],
    'iso-8859-5': ['iso-8859-5', 'iso88595'],
    maccyrillic: ['x-mac-cyrillic', 'maccyrillic'],
  };
  const manifest = JSON.parse(readFileSync(testdata('chardet-corpus/manifest.json'), 'utf8')) as Array<{
    path: string;
    expected_encoding: string;
    cyrillic: boolean;
  }>;
  const files = manifest.filter((e) => e.cyrillic && e.expected_encoding in ENCODINGS);

  it('selects the 121 files of the five WHATWG Cyrillic encodings', () => {
    expect(files).toHaveLength(121);
  });

  it.each(files)('$path', ({ path, expected_encoding }) => {
    const [whatwg, iconvName] = ENCODINGS[expected_encoding]!;
    const bytes = readFileSync(testdata(`chardet-corpus/${path}`));
    const decoded = decodeHtml(bytes, undefined, 'windows-1252');
    expect(decoded.encoding).toBe(whatwg);
    expect(decoded.source).toBe('guess');
    expect(decoded.text).toBe(iconv.decode(bytes, iconvName));
  });
});

describe('canonicalEncoding', () => {
  it.each([
    ['latin1', 'windows-1252'],
    ['ISO-8859-1', 'windows-1252'],
    ['ascii', 'windows-1252'],
    ['US-ASCII', 'windows-1252'],
    [' x-cp1251 ', 'windows-1251'],
    ['koi8', 'koi8-r'],
    ['KOI8_R', 'koi8-r'],
    ['cp866', 'ibm866'],
    ['866', 'ibm866'],
    ['x-mac-ukrainian', 'x-mac-cyrillic'],
    ['cyrillic', 'iso-8859-5'],
    ['iso_8859-5:1988', 'iso-8859-5'],
    ['utf-16', 'utf-16le'],
    ['UTF8', 'utf-8'],
    ['x-user-defined', 'x-user-defined'],
    ['iso-2022-kr', 'replacement'],
    ['hz-gb-2312', 'replacement'],
  ])('%s → %s', (label, name) => {
    expect(canonicalEncoding(label)).toBe(name);
  });

  it('rejects unknown labels (and "replacement", which is a name, not a label)', () => {
    expect(canonicalEncoding('ibm855')).toBeNull();
    expect(canonicalEncoding('maccyrillic')).toBeNull();
    expect(canonicalEncoding('replacement')).toBeNull();
    expect(canonicalEncoding('')).toBeNull();
  });
});

describe('charsetFromContentType', () => {
  it('extracts and canonicalizes the charset parameter', () => {
    expect(charsetFromContentType('text/html; charset=UTF-8')).toBe('utf-8');
    expect(charsetFromContentType('text/html;charset="cp1251"')).toBe('windows-1251');
    expect(charsetFromContentType('text/html; Charset = koi8-r; foo=bar')).toBe('koi8-r');
  });

  it('gives null without a usable charset', () => {
    expect(charsetFromContentType(undefined)).toBeNull();
    expect(charsetFromContentType('text/html')).toBeNull();
    expect(charsetFromContentType('text/html; charset=bogus')).toBeNull();
  });
});

describe('decodeHtml', () => {
  const RUSSIAN =
    'Москва - столица России, крупнейший по численности населения город страны. ' +
    'Город расположен на реке Москве в центре Восточно-Европейской равнины.';
  const page = (body: string, head = ''): string =>
    `<!DOCTYPE html><html><head>${head}<title>Test</title></head><body><p>${body}</p></body></html>`;
  const encode = (text: string, encoding: string): Buffer => iconv.encode(text, encoding);

  it('BOM wins over the HTTP charset and <meta>', () => {
    const html = page(RUSSIAN, '<meta charset="windows-1251">');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html)]);
    expect(decodeHtml(bytes, 'text/html; charset=koi8-r')).toEqual({ text: html, encoding: 'utf-8', source: 'bom' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), encode(html, 'utf16le')]);
    expect(decodeHtml(utf16, 'text/html; charset=koi8-r')).toEqual({ text: html, encoding: 'utf-16le', source: 'bom' });
  });

  it('decodes a lone surrogate in UTF-16 as one U+FFFD, as the WHATWG decoder does (not a string that is not Unicode)', () => {
    const units = (text: string) => Buffer.from(text, 'utf16le');
    for (const [bom, encoding] of [[[0xff, 0xfe], 'utf-16le'], [[0xfe, 0xff], 'utf-16be']] as const) {
      let body = Buffer.concat([units('<title>a'), Buffer.from([0x00, 0xd8]), units('b'), Buffer.from([0x00, 0xdc]), units('c\ud83d\ude00</title>')]);
      if (encoding === 'utf-16be') body = Buffer.from(body).swap16();
      const { text } = decodeHtml(Buffer.concat([Buffer.from(bom), body]), 'text/html');
      expect(text, encoding).toBe('<title>a\ufffdb\ufffdc\ud83d\ude00</title>');
    }
  });

  it('HTTP charset wins over <meta>', () => {
    const html = page(RUSSIAN, '<meta charset="koi8-r">');
    const decoded = decodeHtml(encode(html, 'windows1251'), 'text/html; charset=windows-1251');
    expect(decoded).toEqual({ text: html, encoding: 'windows-1251', source: 'http' });
  });

  it('uses <meta charset> and <meta http-equiv> when HTTP says nothing', () => {
    const html = page(RUSSIAN, '<meta charset="koi8-r">');
    expect(decodeHtml(encode(html, 'koi8r'), 'text/html')).toEqual({ text: html, encoding: 'koi8-r', source: 'meta' });
    const pragma = page(RUSSIAN, '<meta http-equiv="Content-Type" content="text/html; charset=cp866">');
    expect(decodeHtml(encode(pragma, 'cp866'))).toEqual({ text: pragma, encoding: 'ibm866', source: 'meta' });
  });

  it('reads latin1 as windows-1252 (0x80 is €)', () => {
    const decoded = decodeHtml(Buffer.from([0x80, 0x20, 0xe9]), 'text/html; charset=latin1');
    expect(decoded).toEqual({ text: '€ é', encoding: 'windows-1252', source: 'http' });
  });

  it('guesses when a utf-8 declaration is contradicted by the bytes', () => {
    const html = page(RUSSIAN, '<meta charset="utf-8">');
    const bytes = encode(html, 'windows1251');
    expect(decodeHtml(bytes, 'text/html; charset=utf-8')).toEqual({ text: html, encoding: 'windows-1251', source: 'guess' });
    expect(decodeHtml(bytes)).toEqual({ text: html, encoding: 'windows-1251', source: 'guess' });
  });

  it('keeps a utf-8 declaration despite a truncated last character', () => {
    const bytes = Buffer.from(page(RUSSIAN)).subarray(0, 150);
    expect(bytes[149]! >= 0x80).toBe(true);
    expect(decodeHtml(bytes, 'text/html; charset=utf-8').encoding).toBe('utf-8');
    expect(decodeHtml(bytes).encoding).toBe('utf-8');
  });

  it.each([
    ['windows-1251', 'windows1251'],
    ['koi8-r', 'koi8r'],
    ['ibm866', 'cp866'],
    ['iso-8859-5', 'iso88595'],
    ['x-mac-cyrillic', 'maccyrillic'],
  ])('guesses an undeclared short Russian page in %s', (encoding, iconvName) => {
    const html = page(RUSSIAN);
    expect(decodeHtml(encode(html, iconvName))).toEqual({ text: html, encoding, source: 'guess' });
  });

  it('guesses utf-8 for undeclared valid UTF-8', () => {
    const html = page(RUSSIAN);
    expect(decodeHtml(Buffer.from(html))).toEqual({ text: html, encoding: 'utf-8', source: 'guess' });
  });

  it('uses the default encoding for pure ASCII', () => {
    const html = page('Hello, world.');
    expect(decodeHtml(Buffer.from(html))).toEqual({ text: html, encoding: 'windows-1252', source: 'default' });
    expect(decodeHtml(Buffer.from(html), undefined, 'cp1251')).toEqual({
      text: html,
      encoding: 'windows-1251',
      source: 'default',
    });
  });
});

describe('decodeBytes', () => {
  it('decodes windows-1252 0x80–0x9F as WHATWG does, unlike Node 20 TextDecoder', () => {
    expect(decodeBytes(Uint8Array.from([0x80, 0x93, 0x94, 0x9f]), 'windows-1252')).toBe('€“”Ÿ');
  });

  it('handles the special encodings', () => {
    expect(decodeBytes(Uint8Array.from([0x41, 0x80, 0xff]), 'x-user-defined')).toBe('A\uf780\uf7ff');
    expect(decodeBytes(Uint8Array.from([0x41]), 'replacement')).toBe('\ufffd');
    expect(() => decodeBytes(Uint8Array.from([0x41]), 'iso-2022-jp')).toThrow();
  });
});
