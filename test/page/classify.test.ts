import { describe, expect, it } from 'vitest';
import { BAD_RAW_CHARS, linkFate, MAX_LINK_CHARS, type SiteScope } from '../../src/page/link-fate.js';
import { siteIdentity, siteRule, type Scope } from '../../src/url/scope.js';

const site = (host: string, scope: Scope = 'host', mode: SiteScope['mode'] = 'standard'): SiteScope => ({
  rule: siteRule(new URL(`http://${host}/`), scope),
  nested: [],
  mode,
});
const kind = (href: string, base: string, s: SiteScope): string => linkFate(href, base, s).kind;

describe('siteIdentity', () => {
  it.each([
    ['www.spbu.ru', 'host', 'spbu.ru'],
    ['WWW.SPBU.RU', 'host', 'spbu.ru'],
    ['spbu.ru.', 'host', 'spbu.ru'],
    ['www.www.spbu.ru', 'host', 'www.spbu.ru'],
    ['math.spbu.ru', 'host', 'math.spbu.ru'],
    ['math.spbu.ru', 'domain', 'spbu.ru'],
    ['www.spbu.ru', 'domain', 'spbu.ru'],
    ['a.github.io', 'domain', 'a.github.io'],
    ['x.a.github.io', 'domain', 'a.github.io'],
    ['github.io', 'domain', 'github.io'], // a public suffix itself: tldts → null → host rule
    ['news.bbc.co.uk', 'domain', 'bbc.co.uk'],
    ['localhost', 'domain', 'localhost'],
    ['127.0.0.1', 'domain', '127.0.0.1'],
    ['[::1]', 'domain', '[::1]'],
    // Unknown TLDs get the PSL's implicit '*' rule: the last label is the suffix.
    ['big.test', 'domain', 'big.test'],
    ['a.big.test', 'domain', 'big.test'],
    ['a.big.test', 'host', 'a.big.test'],
    ['xn--90ae8ahn.xn--p1ai', 'domain', 'xn--90ae8ahn.xn--p1ai'],
  ] as const)('%s under %s → %s', (host, scope, want) => {
    expect(siteIdentity(host, scope)).toBe(want);
  });
});

describe('linkFate: internal / external', () => {
  const spbu = site('spbu.ru');

  it('www and bare host are the same site under host scope', () => {
    expect(kind('http://www.spbu.ru/a', 'https://spbu.ru/', spbu)).toBe('internal');
    expect(kind('https://spbu.ru/a', 'https://www.spbu.ru/', site('www.spbu.ru'))).toBe('internal');
  });

  it('http vs https does not matter', () => {
    expect(kind('http://spbu.ru/x', 'https://spbu.ru/', spbu)).toBe('internal');
    expect(kind('https://spbu.ru/x', 'http://spbu.ru/', spbu)).toBe('internal');
  });

  it('subdomains: external under host scope, internal under domain scope', () => {
    expect(kind('https://math.spbu.ru/', 'https://spbu.ru/', spbu)).toBe('external');
    expect(kind('https://math.spbu.ru/', 'https://spbu.ru/', site('spbu.ru', 'domain'))).toBe('internal');
    expect(kind('https://spbu.ru/', 'https://math.spbu.ru/', site('math.spbu.ru', 'domain'))).toBe('internal');
  });

  it('private PSL entries separate sites under domain scope', () => {
    const a = site('a.github.io', 'domain');
    expect(kind('https://b.github.io/', 'https://a.github.io/', a)).toBe('external');
    expect(kind('https://a.github.io/x', 'https://a.github.io/', a)).toBe('internal');
  });

  it('localhost, IPs and *.test hosts', () => {
    expect(kind('/x', 'http://localhost:8080/', site('localhost'))).toBe('internal');
    expect(kind('http://127.0.0.1:9/x', 'http://localhost/', site('localhost', 'domain'))).toBe('external');
    expect(kind('http://127.0.0.1:9/x', 'http://127.0.0.1/', site('127.0.0.1', 'domain'))).toBe('internal');
    expect(kind('http://[::1]/x', 'http://[::1]/', site('[::1]'))).toBe('internal');
    expect(kind('http://www.big.test/x', 'http://big.test/', site('big.test'))).toBe('internal');
    expect(kind('http://a.big.test/x', 'http://big.test/', site('big.test'))).toBe('external');
    expect(kind('http://a.big.test/x', 'http://big.test/', site('big.test', 'domain'))).toBe('internal');
    expect(kind('http://other.test/x', 'http://big.test/', site('big.test', 'domain'))).toBe('external');
  });

  it('resolves relative links against the base and returns url and key', () => {
    expect(linkFate(' ../c/D.html#s ', 'https://www.spbu.ru/a/b/', site('spbu.ru', 'host', 'paper'))).toEqual({
      kind: 'internal',
      url: 'https://www.spbu.ru/a/c/D.html',
      key: 'http://spbu.ru/a/c/d.html',
    });
    expect(linkFate('?p=2', 'https://spbu.ru/list', spbu)).toMatchObject({ url: 'https://spbu.ru/list?p=2' });
  });

  it("'#frag' alone is the same page", () => {
    expect(linkFate('#top', 'https://spbu.ru/page?x=1', spbu)).toEqual({
      kind: 'internal',
      url: 'https://spbu.ru/page?x=1',
      key: 'http://spbu.ru/page?x=1',
    });
  });

  it('protocol-relative links keep the base scheme and are external elsewhere', () => {
    expect(linkFate('//other.org/x', 'https://spbu.ru/', spbu)).toMatchObject({ kind: 'external', url: 'https://other.org/x' });
  });
});

describe('linkFate: bad links', () => {
  const s = site('spbu.ru');
  it.each([
    ['javascript:void(0)', 'javascript'],
    ['JavaScript:go()', 'javascript'],
    ['  javascript:go()', 'javascript'],
    ['\x01\x1f javascript:go()', 'javascript'],
    ['java\nscr\tipt:go()', 'javascript'], // the URL parser removes tab/newline anywhere
    ['mailto:a@spbu.ru', 'mailto'],
    ['MAILTO:a@spbu.ru', 'mailto'],
    ['tel:+78120000000', 'tel'],
    ['data:text/html,<p>x', 'data'],
    ['', 'empty'],
    ['   ', 'empty'],
    ['\t\n\f\r ', 'empty'],
    ['http://[bad', 'unparseable'],
    ['http://a b/', 'unparseable'],
    ['ftp://spbu.ru/file', 'unsupported-scheme'],
    ['file:///etc/passwd', 'unsupported-scheme'],
    ['about:blank', 'unsupported-scheme'],
    ['skype:someone?call', 'unsupported-scheme'],
  ])('%j → %s', (href, reason) => {
    expect(linkFate(href, 'https://spbu.ru/', s)).toEqual({ kind: 'bad', raw: href, reason });
  });

  it('a URL longer than 8,192 characters is too-long, also when percent-encoding makes it so; the stored text of a bad link is cut at 2,048', () => {
    const at = (n: number) => `https://spbu.ru/${'a'.repeat(n - 16)}`;
    expect(at(MAX_LINK_CHARS)).toHaveLength(MAX_LINK_CHARS);
    expect(linkFate(at(MAX_LINK_CHARS), 'https://spbu.ru/', s).kind).toBe('internal');
    expect(linkFate(at(MAX_LINK_CHARS + 1), 'https://spbu.ru/', s)).toMatchObject({ kind: 'bad', reason: 'too-long' });
    expect(linkFate(`https://other.example/${'a'.repeat(MAX_LINK_CHARS)}`, 'https://spbu.ru/', s)).toEqual({
      kind: 'bad', raw: `https://other.example/${'a'.repeat(BAD_RAW_CHARS - 22)}…`, reason: 'too-long',
    });
    const cyrillic = `/${'я'.repeat(1500)}`; // 1,501 characters, 9,001 once percent-encoded
    expect(linkFate(cyrillic, 'https://spbu.ru/', s)).toEqual({ kind: 'bad', raw: cyrillic, reason: 'too-long' });
    const uri = `data:image/png;base64,${'A'.repeat(300_000)}`;
    expect(linkFate(uri, 'https://spbu.ru/', s)).toEqual({ kind: 'bad', raw: `${uri.slice(0, BAD_RAW_CHARS)}…`, reason: 'data' });
    // not half of a character outside the BMP
    const emoji = `mailto:${'x'.repeat(BAD_RAW_CHARS - 8)}${'😀'.repeat(10)}`;
    expect((linkFate(emoji, 'https://spbu.ru/', s) as { raw: string }).raw).toBe(`${emoji.slice(0, BAD_RAW_CHARS - 1)}…`);
  });
});
