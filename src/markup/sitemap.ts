import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';

/** sitemaps.org: at most 50,000 URLs and 50 MB (uncompressed) per file. */
export const MAX_SITEMAP_URLS = 50_000;
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

export type Sitemap =
  /** a urlset's page URLs, or a sitemap index's sitemap URLs, in file order */
  | { kind: 'urlset' | 'index'; locs: string[] }
  /** why the file is not a sitemap (one line) */
  | { kind: 'error'; error: string };

/**
 * A sitemap file's bytes to its URLs (sitemaps.org): a `<urlset>` of `<url><loc>`, a
 * `<sitemapindex>` of `<sitemap><loc>`, gzip-compressed or not (by its magic bytes: .xml.gz is
 * served without Content-Encoding), or a text sitemap (one URL per line). Pure. Lenient as
 * search engines are: namespace prefixes and unknown elements are ignored, a loc that is not an
 * absolute http(s) URL or not under its root's own entry (a `<sitemap>` in a urlset) is skipped,
 * and a file cut short gives the URLs before the cut; a file
 * whose root is anything else (an HTML error page) is not a sitemap.
 */
export function parseSitemap(bytes: Uint8Array): Sitemap {
  return readSitemapFile(bytes, MAX_SITEMAP_BYTES).map;
}

/**
 * parseSitemap within `budget` decoded bytes (what is left of all a site's sitemaps may take:
 * inflating and parsing run on the crawl's thread), and the bytes it decoded (its cost).
 */
export function readSitemapFile(bytes: Uint8Array, budget: number): { map: Sitemap; decoded: number } {
  const limit = Math.min(budget, MAX_SITEMAP_BYTES);
  const past = (decoded: number) => ({
    map: { kind: 'error' as const, error: limit < MAX_SITEMAP_BYTES ? "past what a site's sitemaps may take in all: not read" : `inflates past ${MAX_SITEMAP_BYTES / 1024 / 1024} MB (the sitemaps.org limit)` },
    decoded,
  });
  let body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      body = gunzipSync(body, { maxOutputLength: limit });
    } catch (err) {
      // a gzip bomb is no broken file: say what is wrong with it
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return past(limit);
      return { map: { kind: 'error', error: `bad gzip: ${(err as Error).message}` }, decoded: 0 };
    }
  } else if (body.length > limit) return past(0);
  return { map: sitemapText(body), decoded: body.length };
}

function sitemapText(body: Buffer): Sitemap {
  // UTF-8 as sitemaps.org asks; UTF-16 only with its byte order mark, which says so unmistakably
  const utf16 = body[0] === 0xff && body[1] === 0xfe ? 'utf-16le' : body[0] === 0xfe && body[1] === 0xff ? 'utf-16be' : null;
  const text = utf16 ? new TextDecoder(utf16).decode(body) : body.toString('utf8').replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (start === '') return { kind: 'error', error: 'empty file' };
  if (!start.startsWith('<')) return textSitemap(start);
  return xmlSitemap(text);
}

function xmlSitemap(text: string): Sitemap {
  let root: string | null = null;
  const locs: string[] = [];
  const stack: string[] = [];
  let loc: string | null = null;
  const local = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();
  const parser = new Parser(
    {
      onopentag(name) {
        const n = local(name);
        if (root === null) root = n;
        stack.push(n);
        if (n === 'loc') loc = '';
      },
      ontext(t) {
        if (loc !== null) loc += t;
      },
      onclosetag() {
        const n = stack.pop();
        if (n !== 'loc' || loc === null) return;
        const parent = stack.at(-1);
        const url = absoluteHttp(loc.trim());
        loc = null;
        // A urlset lists pages under <url>, an index sitemaps under <sitemap>: the other kind's loc is neither.
        const own = root === 'urlset' ? 'url' : root === 'sitemapindex' ? 'sitemap' : null;
        if (url && parent === own && locs.length < MAX_SITEMAP_URLS) locs.push(url);
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(text);
  if (root === 'urlset') return { kind: 'urlset', locs };
  if (root === 'sitemapindex') return { kind: 'index', locs };
  return { kind: 'error', error: root === null ? 'no XML element' : `not a sitemap (root <${root}>)` };
}

function textSitemap(text: string): Sitemap {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const locs = lines.map(absoluteHttp).filter((u): u is string => u !== null);
  // A text sitemap is URLs only; a file of something else (an HTML-less error text) is not one.
  if (locs.length === 0 || locs.length < lines.length / 2) return { kind: 'error', error: 'not a sitemap (neither XML nor a list of URLs)' };
  return { kind: 'urlset', locs: locs.slice(0, MAX_SITEMAP_URLS) };
}

function absoluteHttp(s: string): string | null {
  if (!/^https?:\/\//i.test(s)) return null;
  try {
    return new URL(s).href;
  } catch {
    return null;
  }
}
