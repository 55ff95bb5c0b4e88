// A sitemap file's bytes to its URLs (pure): urlsets, indexes, gzip and text sitemaps, and files
// that are none of these. What the crawl does with them (scopes, budgets, problems shown) is in
// test/store/sites-scope.test.ts.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_SITEMAP_BYTES, MAX_SITEMAP_URLS, parseSitemap, readSitemapFile } from '../../src/markup/sitemap.js';
import { sitemapIndex, urlset } from '../helpers/sitemap-files.js';

const bytes = (s: string | Buffer) => new Uint8Array(Buffer.from(s));

describe('parseSitemap', () => {
  it('a urlset, an index, gzip, a text sitemap', () => {
    expect(parseSitemap(bytes(urlset('http://a.test/1', ' http://a.test/2?x=1&amp;y=2 ')))).toEqual({ kind: 'urlset', locs: ['http://a.test/1', 'http://a.test/2?x=1&y=2'] });
    expect(parseSitemap(bytes(sitemapIndex('http://a.test/s1.xml', 'http://a.test/s2.xml.gz')))).toEqual({ kind: 'index', locs: ['http://a.test/s1.xml', 'http://a.test/s2.xml.gz'] });
    expect(parseSitemap(gzipSync(urlset('http://a.test/z')))).toEqual({ kind: 'urlset', locs: ['http://a.test/z'] });
    expect(parseSitemap(bytes('<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.test/p</sm:loc></sm:url></sm:urlset>')))
      .toEqual({ kind: 'urlset', locs: ['http://a.test/p'] });
    expect(parseSitemap(bytes('\uFEFFhttp://a.test/1\r\nhttp://a.test/2\n'))).toEqual({ kind: 'urlset', locs: ['http://a.test/1', 'http://a.test/2'] });
  });

  it('reads element names in any case, CDATA, comments and entities; locs come out as normalized URLs', () => {
    expect(parseSitemap(bytes('<URLSET><URL><LOC>http://a.test/up</LOC></URL></URLSET>'))).toEqual({ kind: 'urlset', locs: ['http://a.test/up'] });
    expect(parseSitemap(bytes('<?xml version="1.0"?><!-- made by hand --><urlset><url><loc><![CDATA[http://a.test/c?x=1&y=2]]></loc></url></urlset>')))
      .toEqual({ kind: 'urlset', locs: ['http://a.test/c?x=1&y=2'] });
    expect(parseSitemap(bytes('<urlset><url><loc>HTTP://A.test/&lt;x&gt;</loc></url></urlset>'))).toEqual({ kind: 'urlset', locs: ['http://a.test/%3Cx%3E'] });
    expect(parseSitemap(bytes('HTTPS://B.test'))).toEqual({ kind: 'urlset', locs: ['https://b.test/'] });
  });

  it('malformed: not a sitemap, bad gzip, empty; relative and odd locs skipped; a cut file keeps what came before the cut', () => {
    expect(parseSitemap(bytes('<html><body>Not found</body></html>'))).toEqual({ kind: 'error', error: 'not a sitemap (root <html>)' });
    expect(parseSitemap(new Uint8Array([0x1f, 0x8b, 1, 2, 3]))).toMatchObject({ kind: 'error', error: expect.stringMatching(/^bad gzip/) });
    expect(parseSitemap(bytes('  '))).toEqual({ kind: 'error', error: 'empty file' });
    expect(parseSitemap(bytes('Sorry, nothing here.\nTry later.'))).toEqual({ kind: 'error', error: 'not a sitemap (neither XML nor a list of URLs)' });
    expect(parseSitemap(bytes(urlset('/relative', 'javascript:alert(1)', 'http://[bad', 'http://a.test/ok')))).toEqual({ kind: 'urlset', locs: ['http://a.test/ok'] });
    // a <loc> outside <url> is not a page
    expect(parseSitemap(bytes('<urlset><loc>http://a.test/stray</loc><url><loc>http://a.test/in</loc></url></urlset>'))).toEqual({ kind: 'urlset', locs: ['http://a.test/in'] });
    // each root reads its own entries: a page listed in an index is not a sitemap, a sitemap in a urlset not a page
    expect(parseSitemap(bytes('<sitemapindex><url><loc>http://a.test/page</loc></url><sitemap><loc>http://a.test/s.xml</loc></sitemap></sitemapindex>')))
      .toEqual({ kind: 'index', locs: ['http://a.test/s.xml'] });
    expect(parseSitemap(bytes('<urlset><sitemap><loc>http://a.test/s.xml</loc></sitemap><url><loc>http://a.test/page</loc></url></urlset>')))
      .toEqual({ kind: 'urlset', locs: ['http://a.test/page'] });
    // a gzip bomb (51 MB of zeros in 50 KB) is refused past the 50 MB limit, and says so
    expect(parseSitemap(gzipSync(Buffer.alloc(51 * 1024 * 1024)))).toEqual({ kind: 'error', error: 'inflates past 50 MB (the sitemaps.org limit)' });
    // UTF-16 with its byte order mark, either byte order
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(urlset('http://a.test/ü'), 'utf16le')]);
    expect(parseSitemap(le)).toEqual({ kind: 'urlset', locs: ['http://a.test/%C3%BC'] });
    expect(parseSitemap(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(urlset('http://a.test/ü'), 'utf16le').swap16()]))).toEqual({ kind: 'urlset', locs: ['http://a.test/%C3%BC'] });
    const cut = urlset('http://a.test/1', 'http://a.test/2').slice(0, -60);
    expect(parseSitemap(bytes(cut))).toEqual({ kind: 'urlset', locs: ['http://a.test/1'] });
  });

  it('garbage: binary bytes, a lone "<", an XML declaration without an element, a root of another name', () => {
    expect(parseSitemap(new Uint8Array([0x00, 0x01, 0xff, 0xfe, 0x80]))).toEqual({ kind: 'error', error: 'not a sitemap (neither XML nor a list of URLs)' });
    expect(parseSitemap(bytes('<'))).toEqual({ kind: 'error', error: 'no XML element' });
    expect(parseSitemap(bytes('<?xml version="1.0"?>'))).toEqual({ kind: 'error', error: 'no XML element' });
    expect(parseSitemap(bytes('<rss><channel><loc>http://a.test/x</loc></channel></rss>'))).toEqual({ kind: 'error', error: 'not a sitemap (root <rss>)' });
  });

  it('a text sitemap: at least half its lines must be URLs, and only the URLs are kept', () => {
    expect(parseSitemap(bytes('http://a.test/1\nnot a url\nhttp://a.test/2'))).toEqual({ kind: 'urlset', locs: ['http://a.test/1', 'http://a.test/2'] });
    expect(parseSitemap(bytes('http://a.test/1\nnot a url'))).toEqual({ kind: 'urlset', locs: ['http://a.test/1'] });
    expect(parseSitemap(bytes('http://a.test/1\nnot\na url'))).toEqual({ kind: 'error', error: 'not a sitemap (neither XML nor a list of URLs)' });
  });

  it('keeps the first 50,000 URLs of a file, XML or text (the sitemaps.org limit)', () => {
    const urls = Array.from({ length: MAX_SITEMAP_URLS + 5 }, (_, i) => `http://a.test/${i}`);
    for (const file of [urlset(...urls), urls.join('\n')]) {
      const map = parseSitemap(bytes(file));
      expect(map.kind).toBe('urlset');
      const locs = map.kind === 'urlset' ? map.locs : [];
      expect([locs.length, locs[0], locs.at(-1)]).toEqual([MAX_SITEMAP_URLS, 'http://a.test/0', `http://a.test/${MAX_SITEMAP_URLS - 1}`]);
    }
  });
});

describe('readSitemapFile', () => {
  const plain = bytes(urlset('http://a.test/1'));
  const packed = gzipSync(plain);

  it('reads a file within the budget and says what it decoded: the inflated size of a gzip file', () => {
    expect(readSitemapFile(plain, plain.length)).toEqual({ map: { kind: 'urlset', locs: ['http://a.test/1'] }, decoded: plain.length });
    expect(readSitemapFile(packed, MAX_SITEMAP_BYTES)).toEqual({ map: { kind: 'urlset', locs: ['http://a.test/1'] }, decoded: plain.length });
  });

  it('does not read a file past what is left of the budget; a gzip file costs what was inflated before the stop', () => {
    const past = { kind: 'error', error: "past what a site's sitemaps may take in all: not read" };
    expect(readSitemapFile(plain, plain.length - 1)).toEqual({ map: past, decoded: 0 });
    expect(readSitemapFile(packed, 10)).toEqual({ map: past, decoded: 10 });
  });
});
