// Unit tests of small pure pieces: argument parsing, settings, page analysis, pull results.
import { describe, expect, it } from 'vitest';
import { parseResolve } from '../../src/cli/crawl-command.js';
import { headerDelimiter, parseSeedFile, seedFileText } from '../../src/cli/seed-file.js';
import type { Site } from '../../src/store/sites.js';
import { parseUrlPattern } from '../../src/url/url-pattern.js';
import { formatTable } from '../../src/cli/table.js';
import { analyseJob, analysePage } from '../../src/page/analyse.js';
import { htmlBody, toPullResult as toPullResultOf } from '../../src/net/pull-result.js';
import { UsageError } from '../../src/errors.js';
import { defaults, parseSetting } from '../../src/store/settings.js';
import { siteRule } from '../../src/url/scope.js';

const site = { rule: siteRule(new URL('http://uni.test/'), 'host'), nested: [], mode: 'standard' as const };
const page = { id: 7, siteId: 1, url: 'http://uni.test/a/', level: 2 };

describe('parseResolve', () => {
  it('reads curl-style host:port:addr, IPv6 in brackets', () => {
    expect(parseResolve(['Uni.test:80:127.0.0.1', 'v6.test:*:[::1]'])).toEqual(new Map([['uni.test', '127.0.0.1'], ['v6.test', '::1']]));
  });
  it('rejects anything else as a usage error', () => {
    for (const bad of ['uni.test:127.0.0.1', 'uni.test:80:', 'uni.test:x:1.2.3.4']) expect(() => parseResolve([bad])).toThrow(UsageError);
  });
});

describe('parseSeedFile', () => {
  it('reads plain lines, skipping blanks and comments', () => {
    expect(parseSeedFile('\uFEFFa.example\n\n# c\r\nhttp://b.example/x\n').map((r) => [r.line, r.url.href])).toEqual([
      [1, 'https://a.example/'],
      [4, 'http://b.example/x'],
    ]);
  });
  it('reads CSV with quoted fields and a header in any case', () => {
    const rows = parseSeedFile('URL,Name,Short,Group\n"https://a.example/","A ""the"" one",a,university\n');
    expect(rows[0]).toMatchObject({ line: 2, name: 'A "the" one', short: 'a', group: 'university' });
  });
  it('rejects the whole file when a line is not a usable URL', () => {
    expect(() => parseSeedFile('a.example\nftp://b.example\n')).toThrow(/line 2/);
  });
  it('sniffs the delimiter from the header line; a line naming no url column is no header', () => {
    expect(headerDelimiter('URL;Name;Short;Group')).toBe(';');
    expect(headerDelimiter('"url"\t"name"')).toBe('\t');
    expect(headerDelimiter('name|url')).toBe('|');
    expect(headerDelimiter('url')).toBe(',');
    expect(headerDelimiter('url\thttps://a.ru')).toBeNull();
    expect(headerDelimiter('https://a.example/')).toBeNull();
    expect(parseSeedFile('url;name\nhttps://a.example/ # ours;A, B\n')).toMatchObject([{ line: 2, name: 'A, B' }]);
  });
});

describe('seed files', () => {
  const site = (o: Partial<Site>): Site => ({
    id: 1, url: 'https://a.example/', name: null, short: null, group: null, unavailable: null, failures: 0, pulls: 0, rewardSum: 0,
    rewardMax: 0, deepest: null, scope: null, include: null, exclude: null, sitemaps: null, sitemapsRead: null, sitemapFiles: null, sitemapProblems: null, ...o,
  });

  it("reads a site's scope, patterns (separated by spaces) and sitemaps; empty cells are the settings' defaults", () => {
    const rows = parseSeedFile('url,scope,include,exclude,sitemaps\nhttps://a.example/,Domain,/news/* re:[?&]p=1,*/print/*,NO\nhttps://b.example/,,,,\n');
    expect(rows.map(({ url, scope, include, exclude, sitemaps }) => ({ url: url.href, scope, include, exclude, sitemaps }))).toEqual([
      { url: 'https://a.example/', scope: 'domain', include: ['/news/*', 're:[?&]p=1'], exclude: ['*/print/*'], sitemaps: 'no' },
      { url: 'https://b.example/', scope: null, include: [], exclude: [], sitemaps: null },
    ]);
  });

  it('rejects the whole file, naming the lines, for a bad scope, pattern or sitemaps value', () => {
    const text = 'url;scope;include;sitemaps\na.example;site;;\nb.example;;re:([;\nc.example;;;maybe\nd.example;prefix;;yes\n';
    expect(() => parseSeedFile(text)).toThrow(/^nothing imported: line 2: scope must be one of host, domain, prefix, got 'site', line 3: bad pattern 're:\(\[': not a regular expression.*, line 4: sitemaps must be yes or no, got 'maybe'$/);
  });

  it('writes RFC 4180 CSV with a header row that reads back as the same sites', () => {
    const sites = [
      site({ url: 'https://a.example/', name: 'A, "the" one', short: 'a', group: 'uni', scope: 'domain', include: JSON.stringify(['/news/*', 're:[?&]p=1']), sitemaps: 'no' }),
      site({ id: 2, url: 'https://b.example/docs/', scope: 'prefix', exclude: JSON.stringify(['*/print/*']) }),
    ];
    const text = seedFileText(sites);
    expect(text.split('\r\n')[0]).toBe('url,name,short,group,scope,include,exclude,sitemaps');
    expect(text).toContain('"A, ""the"" one"');
    const back = parseSeedFile(text).map(({ url, name, short, group, scope, include, exclude, sitemaps }) => ({ url: url.href, name, short, group, scope, include, exclude, sitemaps }));
    expect(back).toEqual([
      { url: 'https://a.example/', name: 'A, "the" one', short: 'a', group: 'uni', scope: 'domain', include: ['/news/*', 're:[?&]p=1'], exclude: [], sitemaps: 'no' },
      { url: 'https://b.example/docs/', name: undefined, short: undefined, group: undefined, scope: 'prefix', include: [], exclude: ['*/print/*'], sitemaps: null },
    ]);
  });

  it('writes a regex with whitespace as the same regex without it, a glob percent-encoded', () => {
    const source = 're:[^ ]x\\ y\\\\ z';
    const [written] = parseSeedFile(seedFileText([site({ include: JSON.stringify([source, '/a b/*']) })]))[0]!.include!;
    expect(written).not.toMatch(/\s/);
    const [a, b] = [parseUrlPattern(source), parseUrlPattern(written!)] as { re: RegExp }[];
    for (const probe of ['ax y', 'x', ' x', 'x\\ z', 'y\\ z', 'bx y\\ z']) expect([probe, b!.re.test(probe)]).toEqual([probe, a!.re.test(probe)]);
    expect(parseSeedFile(seedFileText([site({ include: JSON.stringify(['/a b/*']) })]))[0]!.include).toEqual(['/a%20b/*']);
  });
});

describe('settings', () => {
  it('parses and checks values', () => {
    expect(parseSetting('max-level', '7')).toBe(7);
    expect(parseSetting('budget', 'none')).toBeNull();
    expect(() => parseSetting('delay', '1.5')).toThrow(UsageError);
    expect(() => parseSetting('concurrency', '0')).toThrow(UsageError);
    expect(defaults['max-level']).toBe(5);
  });
});

describe('formatTable to a width', () => {
  it('narrows the widest text column, never numbers nor the columns kept whole', () => {
    const out = formatTable(['id', 'site', 'state'], [[1, 'a-very-long-host-name.example', 'not-available'], [22, 'b', 'crawling']], true, { width: 30, whole: ['state'] });
    expect(out).toBe('id  site         state\n 1  a-very-lon…  not-available\n22  b            crawling\n');
    for (const l of out.trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(30);
  });
});

describe('formatTable', () => {
  it('cuts a cell before a character outside the BMP, not through it (no U+FFFD on the terminal)', () => {
    const out = formatTable(['id', 'title'], [[1, 'abcdef\u{1F600}gh']], true, { width: 12 });
    expect(out).toBe('id  title\n 1  abcdef…\n');
  });

  it('aligns on a terminal, numbers to the right', () => {
    expect(formatTable(['id', 'site'], [[1, 'a'], [10, 'bb']], true)).toBe('id  site\n 1  a\n10  bb\n');
  });
  it('writes TSV when piped, with tabs and newlines in cells flattened', () => {
    expect(formatTable(['a', 'b'], [['x\ty', null]], false)).toBe('a\tb\nx y\t\n');
  });
});

describe('analysePage', () => {
  it('resolves against the first <base href> and sorts every link', () => {
    const html = `<base href="/sub/"><base href="/ignored/">
      <a href="x.html">X</a> <a href="https://www.uni.test/y">Y</a> <a href="http://other.org/#top" rel="nofollow">Other</a>
      <a href="mailto:a@b">mail</a> <iframe src="/frame.html"></iframe>`;
    const a = analysePage(Buffer.from(html), page.url, 'text/html; charset=utf-8', site, 'windows-1252');
    expect(a).toMatchObject({ encoding: 'utf-8', encodingSource: 'http' });
    expect(a.links.internal.map((l) => l.url)).toEqual(['http://uni.test/sub/x.html', 'https://www.uni.test/y', 'http://uni.test/frame.html']);
    expect(a.links.external).toEqual([{ url: 'http://other.org/', key: 'http://other.org/', host: 'other.org', anchor: 'Other', rel: 'nofollow', tag: 'a' }]);
    expect(a.links.bad).toEqual([{ raw: 'mailto:a@b', reason: 'mailto' }]);
  });
  it('ignores a <base href> that is not http(s)', () => {
    const a = analysePage(Buffer.from('<base href="javascript:x"><a href="z">z</a>'), page.url, 'text/html', site, 'windows-1252');
    expect(a.links.internal[0]!.url).toBe('http://uni.test/a/z');
  });
});

describe('toPullResult', () => {
  // As the crawl does it: the HTML body is analysed (in a worker there), then the result is built.
  const toPullResult = (p: typeof page, f: ReturnType<typeof fetch>, sc: typeof site, s: typeof defaults) => {
    const body = htmlBody(f as never);
    const analysed = body && analyseJob({ bytes: body, url: f.finalUrl, contentType: f.response!.contentType, scope: sc, defaultEncoding: s['default-encoding'], settings: s });
    return toPullResultOf(p, f as never, sc, analysed);
  };
  const res = (over: object) => ({ status: 200, contentType: 'text/html', location: null, contentLength: null, body: Buffer.from('<a href="/b">b</a>'), ...over });
  const fetch = (over: object) => ({ hops: [], response: res({}), finalUrl: page.url, offsite: null, error: null, ...over });

  it('parses HTML and records the final page of an in-site redirect', () => {
    const r = toPullResult(page, fetch({ finalUrl: 'http://uni.test/c/' }), site, defaults);
    expect(r).toMatchObject({ status: 'done', httpStatus: 200, final: { url: 'http://uni.test/c/', key: 'http://uni.test/c/' } });
    expect(r.links.internal).toEqual([{ url: 'http://uni.test/b', key: 'http://uni.test/b', anchor: 'b' }]);
  });
  it('a www spelling of the same page is not a redirect target', () => {
    expect(toPullResult(page, fetch({ finalUrl: 'http://www.uni.test/a/' }), site, defaults).final).toBeNull();
  });
  it('an off-site redirect becomes an external link of the page', () => {
    const r = toPullResult(page, fetch({ response: res({ status: 302, body: null }), offsite: { url: 'https://x.org/', key: 'https://x.org/' } }), site, defaults);
    expect(r.status).toBe('redirect');
    expect(r.links.external).toEqual([{ url: 'https://x.org/', key: 'https://x.org/', anchor: '', rel: '', tag: 'redirect' }]);
  });
  it('HTTP errors, non-HTML types and network errors', () => {
    expect(toPullResult(page, fetch({ response: res({ status: 404 }) }), site, defaults)).toMatchObject({ status: 'error', error: 'HTTP 404' });
    expect(toPullResult(page, fetch({ response: res({ contentType: 'image/png', body: null, contentLength: 9 }) }), site, defaults)).toMatchObject({ status: 'not-html', bytes: 9 });
    expect(toPullResult(page, fetch({ response: null, error: 'refused' }), site, defaults)).toMatchObject({ status: 'error', error: 'refused' });
  });
  it('over max-links-per-page keeps distinct external links first, then pages; files and bad links are dropped first, and the note says so', () => {
    const html = [
      ...Array.from({ length: 5 }, (_, i) => `<a href="mailto:m${i}@x.org">m</a>`),
      ...Array.from({ length: 5 }, (_, i) => `<a href="/img/${i}.png">i</a>`),
      ...Array.from({ length: 5 }, (_, i) => `<a href="/p${i}">p</a>`),
      ...Array.from({ length: 10 }, (_, i) => `<a href="http://o${i % 3}.org/${i}">o</a><a href="http://o${i % 3}.org/${i}">again</a>`),
    ].join('');
    const capped = (cap: number) => toPullResult(page, fetch({ response: res({ body: Buffer.from(html) }) }), site, { ...defaults, 'max-links-per-page': cap });
    const r = capped(13);
    expect(r.links.external).toHaveLength(10);
    expect(r.links.internal.map((l) => l.url)).toEqual(['http://uni.test/p0', 'http://uni.test/p1', 'http://uni.test/p2']);
    expect(r.links.bad).toEqual([]);
    expect(r.note).toBe('links-capped: 13 of 25 kept; dropped 2 internal, 5 files, 5 bad');
    const wide = capped(22);
    expect(wide.links.internal.filter((l) => l.hold?.status === 'file')).toHaveLength(5);
    expect(wide.links.bad).toHaveLength(2);
    expect(wide.note).toBe('links-capped: 22 of 25 kept; dropped 3 bad');
    expect(capped(8).note).toBe('links-capped: 8 of 25 kept; dropped 2 external, 5 internal, 5 files, 5 bad');
    expect(capped(25).note).toBeNull();
  });
  it('sniffs a body without Content-Type', () => {
    expect(toPullResult(page, fetch({ response: res({ contentType: null, body: Buffer.from('<!DOCTYPE html><a href=/q>q</a>') }) }), site, defaults).status).toBe('done');
    expect(toPullResult(page, fetch({ response: res({ contentType: null, body: Buffer.from('%PDF-1.4') }) }), site, defaults).status).toBe('not-html');
  });
});
