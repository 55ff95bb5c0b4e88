// A link's fate from the link and what the crawl knows, as plain data: no page, no crawl, no
// database, no network. Each table row is one link and one state of knowledge.
import { describe, expect, it } from 'vitest';
import {
  hopFate, linkFate, pickedFate, queryVariantFate, queuedFate, settleInternal, variantPath,
  type AtPick, type LinkFate, type LinkSettings, type RobotsWord, type SiteScope,
} from '../../src/page/link-fate.js';
import type { Hold } from '../../src/page/found-links.js';
import { DeadEnds, type ClassTally } from '../../src/schedule/dead-ends.js';
import type { ParamRule, SiteParamRules } from '../../src/params/rules.js';
import { defaultSkipExtensions } from '../../src/url/file-links.js';
import { siteRule, type Scope } from '../../src/url/scope.js';
import { parseUrlPattern, type UrlPattern } from '../../src/url/url-pattern.js';

const rule = (seed: string, scope: Scope = 'host', exclude: string[] = []) =>
  siteRule(new URL(seed), scope, { exclude: exclude.map((p) => parseUrlPattern(p) as UrlPattern) });
/** uni.test as a host site, its lab a prefix site nested in it, /drafts/ left out by a pattern. */
const uni: SiteScope = { rule: rule('http://uni.test/', 'host', ['/drafts/*']), nested: [rule('http://uni.test/lab/', 'prefix')], mode: 'standard', sessionIds: 'strip' };
const settings: LinkSettings = { 'max-url-length': 2048, 'max-path-depth': 24, 'skip-extensions': new Set(defaultSkipExtensions), 'max-links-per-page': 10_000 };
const params: SiteParamRules = new Map([['/item.php', new Map<string, ParamRule>([['id', { kind: 'required' }]])]]);

/** A found link's whole fate: found on a page of uni.test (linkFate), then settled as the page's links are (settleInternal). */
function found(href: string, s: Partial<LinkSettings> = {}): LinkFate {
  const f = linkFate(href, 'http://uni.test/a/', uni);
  if (f.kind !== 'internal') return f;
  const links = [f.hold ? { url: f.url, key: f.key, hold: f.hold } : { url: f.url, key: f.key }];
  settleInternal(links, uni, { ...settings, ...s }, params);
  const [l] = links;
  return l!.hold ? { kind: 'internal', url: l!.url, key: l!.key, hold: l!.hold } : { kind: 'internal', url: l!.url, key: l!.key };
}

describe('a found link: internal, external, bad, or held', () => {
  const hold = (status: Hold['status'], note: string, url: string): LinkFate => ({ kind: 'internal', url, key: url, hold: { status, note } });
  const page = (url: string): LinkFate => ({ kind: 'internal', url, key: url });
  it.each<[string, string, Partial<LinkSettings>, LinkFate]>([
    ['a page of the site', 'b.html', {}, page('http://uni.test/a/b.html')],
    ['another host', 'https://www.other.org/p#top', {}, { kind: 'external', url: 'https://www.other.org/p', key: 'http://other.org/p', host: 'other.org' }],
    ['a page of the site nested in it (the lab owns it)', '/lab/x.html', {}, { kind: 'external', url: 'http://uni.test/lab/x.html', key: 'http://uni.test/lab/x.html', host: 'uni.test' }],
    ['left out by the site\'s patterns', '/drafts/x.pdf', {}, hold('excluded', 'excluded by /drafts/*', 'http://uni.test/drafts/x.pdf')],
    ['breaking a parameter rule', '/item.php?ref=1', {}, hold('ignored', "params: 'id' is required", 'http://uni.test/item.php?ref=1')],
    ['a path that repeats itself', '/c/a/b/a/b/a/b/', {}, hold('trap', 'repeated-path-segments', 'http://uni.test/c/a/b/a/b/a/b/')],
    ['a path deeper than max-path-depth', '/p/q/r/s', { 'max-path-depth': 3 }, hold('trap', 'path-too-deep', 'http://uni.test/p/q/r/s')],
    ['a URL longer than max-url-length', `/${'x'.repeat(60)}`, { 'max-url-length': 50 }, hold('trap', 'url-too-long', `http://uni.test/${'x'.repeat(60)}`)],
    ['a file, not a page', '/docs/paper.PDF', {}, hold('file', 'pdf', 'http://uni.test/docs/paper.PDF')],
    ['a file the settings fetch', '/x.zip', { 'skip-extensions': new Set() }, page('http://uni.test/x.zip')],
    ['mailto:', 'mailto:a@b', {}, { kind: 'bad', raw: 'mailto:a@b', reason: 'mailto' }],
    ['javascript: hidden by controls', '\x01java\nscript:go()', {}, { kind: 'bad', raw: '\x01java\nscript:go()', reason: 'javascript' }],
    ['empty', '  ', {}, { kind: 'bad', raw: '  ', reason: 'empty' }],
    ['another scheme', 'ftp://uni.test/f', {}, { kind: 'bad', raw: 'ftp://uni.test/f', reason: 'unsupported-scheme' }],
    ['unparseable', 'http://[oops/', {}, { kind: 'bad', raw: 'http://[oops/', reason: 'unparseable' }],
  ])('%s: %j', (_, href, s, fate) => {
    expect(found(href, s)).toEqual(fate);
  });
});

describe('a link new to the store: the query-variants trap', () => {
  it.each<[string, string | null]>([
    ['http://uni.test/cal?d=1', 'http://uni.test/cal?'],
    ['http://uni.test/cal?', 'http://uni.test/cal?'],
    ['http://uni.test/cal', null],
  ])('%s is counted under %s', (key, path) => {
    expect(variantPath(key)).toBe(path);
  });

  it.each<[number, number, Hold | undefined]>([
    [0, 100, undefined],
    [99, 100, undefined],
    [100, 100, { status: 'trap', note: 'query-variants' }],
    [250, 100, { status: 'trap', note: 'query-variants' }],
    [0, 0, { status: 'trap', note: 'query-variants' }],
    [10 ** 9, Infinity, undefined],
  ])('%i query strings counted, max %d: %j', (counted, max, fate) => {
    expect(queryVariantFate(counted, max)).toEqual(fate);
  });
});

describe('a queued page when it is picked', () => {
  const allow: RobotsWord = { kind: 'allow' };
  const deny: RobotsWord = { kind: 'deny', reason: 'disallowed by robots.txt' };
  const wait: RobotsWord = { kind: 'wait', until: 0, reason: 'robots.txt: HTTP 503' };
  const dead: ClassTally[] = [{ cls: 'dir /m/', good: 1, bad: 3 }, { cls: '*.ja.html', good: 0, bad: 3 }];
  it.each<[string, AtPick, ReturnType<typeof pickedFate>]>([
    ['nothing known', {}, null],
    ['robots.txt allows it', { robots: allow }, null],
    ['robots.txt disallows it', { robots: deny }, { status: 'robots-denied', note: 'disallowed by robots.txt' }],
    ['robots.txt unreadable: no fate, it waits', { robots: wait }, null],
    ['a class with 3 failed pulls and no page, limit 3', { deadEnds: { tallies: dead, limit: 3 } }, { status: 'skipped', note: 'dead end: 3 failed pulls and no page in *.ja.html' }],
    ['the same, limit 4', { deadEnds: { tallies: dead, limit: 4 } }, null],
    ['the same, dead ends off', { deadEnds: { tallies: dead, limit: null } }, null],
    ['failed pulls in a class that gave a page', { deadEnds: { tallies: [{ cls: 'dir /m/', good: 1, bad: 9 }], limit: 3 } }, null],
    ['robots.txt first', { robots: deny, deadEnds: { tallies: dead, limit: 3 } }, { status: 'robots-denied', note: 'disallowed by robots.txt' }],
  ])('%s', (_, at, fate) => {
    expect(pickedFate(at)).toEqual(fate);
  });

  it('queuedFate reads the crawl state\'s dead ends, per site', () => {
    const deadEnds = new DeadEnds(3);
    deadEnds.record(1, 'http://h/m/index.html', 'page'); // dir /m/ and *.html gave a page
    for (const f of ['a', 'b', 'c']) deadEnds.record(1, `http://h/m/${f}.ja.html`, 'dead');
    expect(queuedFate({ siteId: 1, url: 'http://h/n/x.ja.html' }, { deadEnds })).toEqual({ status: 'skipped', note: 'dead end: 3 failed pulls and no page in *.ja.html' });
    expect(queuedFate({ siteId: 2, url: 'http://h/n/x.ja.html' }, { deadEnds })).toBeNull();
  });

  it.each<[RobotsWord, 'robots-denied' | null]>([
    [allow, null],
    [deny, 'robots-denied'],
    [wait, 'robots-denied'],
  ])('a redirect hop robots.txt answers %j: %s', (robots, fate) => {
    expect(hopFate(robots)).toBe(fate);
  });
});
