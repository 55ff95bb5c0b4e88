// A page's final links come from the page floor alone: its HTML, its site's scope and rules and
// the link settings in, the links the store keeps out (no crawl, no database, no network).
import { describe, expect, it } from 'vitest';
import { analyseJob, type FinalPage } from '../../src/page/analyse.js';
import type { LinkSettings, SiteScope } from '../../src/page/link-fate.js';
import { linkKey } from '../../src/page/final-links.js';
import type { ParamRule, SiteParamRules } from '../../src/params/rules.js';
import { defaultSkipExtensions } from '../../src/url/file-links.js';
import { siteRule } from '../../src/url/scope.js';
import { parseUrlPattern, type UrlPattern } from '../../src/url/url-pattern.js';

const scope: SiteScope = { rule: siteRule(new URL('http://uni.test/'), 'host'), nested: [], mode: 'standard', sessionIds: 'strip' };
const settings: LinkSettings = { 'max-url-length': 2048, 'max-path-depth': 24, 'skip-extensions': new Set(defaultSkipExtensions), 'max-links-per-page': 10_000 };
const rules = (spec: Record<string, Record<string, ParamRule>>): SiteParamRules =>
  new Map(Object.entries(spec).map(([path, params]) => [path, new Map(Object.entries(params))]));
/** The site's parameter rules: tracking parameters dropped on every path, one script with a required id. */
const params = rules({ '*': { utm_source: { kind: 'dropped' } }, '/item.php': { id: { kind: 'required' } } });
const token = 'a'.repeat(16) + '0123456789abcdef';

/** The final links of a page at http://uni.test/a/ (params null: a site without rules). */
const final = (html: string, o: { s?: Partial<LinkSettings>; params?: SiteParamRules | null; scope?: SiteScope } = {}): FinalPage => {
  const a = analyseJob({
    bytes: Buffer.from(html), url: 'http://uni.test/a/', contentType: 'text/html', scope: o.scope ?? scope, defaultEncoding: 'utf-8',
    settings: { ...settings, ...o.s }, params: o.params === null ? undefined : (o.params ?? params),
  });
  if ('unparsed' in a) throw new Error(a.unparsed);
  return a;
};
const internal = (a: FinalPage) => a.links.internal.map(({ url, key, hold }) => (hold ? { url, key, hold } : { url, key }));

describe("a page's final links", () => {
  it('canonicalises internal links: session ids leave the key, parameter rules rewrite URL and key', () => {
    const a = final(`<a href="/s;jsessionid=0A1B2C/p">s</a><a href="/news?PHPSESSID=${token}&x=1">n</a><a href="/news?utm_source=mail&x=1">t</a><a href="/item.php?utm_source=x&id=7&ref=home">i</a>`);
    expect(internal(a)).toEqual([
      { url: 'http://uni.test/s;jsessionid=0A1B2C/p', key: 'http://uni.test/s/p' },
      { url: `http://uni.test/news?PHPSESSID=${token}&x=1`, key: 'http://uni.test/news?x=1' },
      { url: 'http://uni.test/news?x=1', key: 'http://uni.test/news?x=1' },
      { url: 'http://uni.test/item.php?id=7', key: 'http://uni.test/item.php?id=7' },
    ]);
    // without rules the tracking parameter stays
    expect(internal(final('<a href="/news?utm_source=mail&x=1">t</a>', { params: null }))).toEqual([
      { url: 'http://uni.test/news?utm_source=mail&x=1', key: 'http://uni.test/news?utm_source=mail&x=1' },
    ]);
  });

  it('holds traps, skipped files and URLs that break a rule; keeps what the site patterns held', () => {
    const a = final('<a href="/cal/a/b/a/b/a/b/">loop</a><a href="/docs/paper.PDF">pdf</a><a href="/get/src.tar.gz?v=2">tgz</a><a href="/x.zip">zip</a><a href="/item.php?ref=1">bad</a><a href="/page.html">page</a>');
    expect(internal(a)).toEqual([
      { url: 'http://uni.test/cal/a/b/a/b/a/b/', key: 'http://uni.test/cal/a/b/a/b/a/b/', hold: { status: 'trap', note: 'repeated-path-segments' } },
      { url: 'http://uni.test/docs/paper.PDF', key: 'http://uni.test/docs/paper.PDF', hold: { status: 'file', note: 'pdf' } },
      { url: 'http://uni.test/get/src.tar.gz?v=2', key: 'http://uni.test/get/src.tar.gz?v=2', hold: { status: 'file', note: 'tar.gz' } },
      { url: 'http://uni.test/x.zip', key: 'http://uni.test/x.zip', hold: { status: 'file', note: 'zip' } },
      { url: 'http://uni.test/item.php?ref=1', key: 'http://uni.test/item.php?ref=1', hold: { status: 'ignored', note: "params: 'id' is required" } },
      { url: 'http://uni.test/page.html', key: 'http://uni.test/page.html' },
    ]);
    // a deep path and an overlong URL under the settings' limits; no extension skipped when the list is empty
    const b = final(`<a href="/a/b/c/d">deep</a><a href="/${'x'.repeat(60)}">long</a><a href="/x.zip">zip</a>`, { s: { 'max-path-depth': 3, 'max-url-length': 50, 'skip-extensions': new Set() } });
    expect(b.links.internal.map((l) => l.hold ?? null)).toEqual([{ status: 'trap', note: 'path-too-deep' }, { status: 'trap', note: 'url-too-long' }, null]);
    // a link the site's patterns leave out stays held as excluded, whatever else it is
    const held = { ...scope, rule: siteRule(new URL('http://uni.test/'), 'host', { exclude: [parseUrlPattern('/cal/*') as UrlPattern] }) };
    expect(final('<a href="/cal/a/b/a/b/a/b/x.pdf">loop</a>', { scope: held }).links.internal[0]!.hold).toEqual({ status: 'excluded', note: 'excluded by /cal/*' });
  });

  it('keeps external and bad links as classified', () => {
    const a = final('<a href="https://www.other.org/p?utm_source=x#top" rel="nofollow">o</a><a href="mailto:a@b">m</a>');
    expect(a.links.external).toEqual([{ url: 'https://www.other.org/p?utm_source=x', key: 'http://other.org/p?utm_source=x', host: 'other.org', anchor: 'o', rel: 'nofollow', tag: 'a' }]);
    expect(a.links.bad).toEqual([{ raw: 'mailto:a@b', reason: 'mailto' }]);
    expect(a.note).toBeNull();
  });

  it('over max-links-per-page keeps distinct external links first, then pages, then held links, then bad ones', () => {
    const html = [
      '<a href="mailto:m@x.org">m</a><a href="/f.pdf">f</a><a href="/p1">p</a><a href="/p2">p</a><a href="/p1">again</a>',
      '<a href="http://o1.org/">o</a><a href="http://o2.org/">o</a><a href="http://o1.org/">again</a>',
    ].join('');
    const capped = (cap: number) => final(html, { s: { 'max-links-per-page': cap } });
    const a = capped(3);
    expect(a.links.external.map((l) => l.url)).toEqual(['http://o1.org/', 'http://o2.org/']);
    expect(a.links.internal.map((l) => l.url)).toEqual(['http://uni.test/p1']);
    expect(a.links.bad).toEqual([]);
    expect(a.note).toBe('links-capped: 3 of 6 kept; dropped 1 internal, 1 files, 1 bad');
    expect(capped(5).links.internal.map((l) => l.url)).toEqual(['http://uni.test/f.pdf', 'http://uni.test/p1', 'http://uni.test/p2']);
    expect(capped(5).note).toBe('links-capped: 5 of 6 kept; dropped 1 bad');
    // over the cap only through repeats: they collapse, nothing is cut
    expect(capped(6)).toMatchObject({ note: null, links: { internal: [{ url: 'http://uni.test/f.pdf' }, { url: 'http://uni.test/p1' }, { url: 'http://uni.test/p2' }] } });
  });

  it("keys a redirect's final URL as the site's links are keyed", () => {
    expect(linkKey(`http://www.uni.test/news?utm_source=mail&PHPSESSID=${token}&x=1`, scope, params)).toBe('http://uni.test/news?x=1');
    expect(linkKey('http://uni.test/item.php?ref=1', scope, params)).toBe('http://uni.test/item.php?ref=1'); // broken rule: its plain key
    expect(linkKey('http://uni.test/news?utm_source=mail', scope)).toBe('http://uni.test/news?utm_source=mail');
  });
});
