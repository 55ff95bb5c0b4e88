import { describe, expect, it } from 'vitest';
import { defaultWeb, renderPage } from '../../bench/web.js';
import { extractLinks, MarkupLimit, MAX_NESTING } from '../../src/page/extract.js';
import { ContentHash } from '../../src/page/page-fingerprint.js';

const links = (html: string, maxText?: number) => extractLinks(html, { maxText }).links;
const texts = (html: string, maxText?: number) => links(html, maxText).map((l) => l.text);

describe('extractLinks', () => {
  it('collects a/area/frame/iframe in document order', () => {
    const html = `<frameset><frame src="f.html"></frameset>
      <a href="/a" rel=" NoFollow  UGC ">A</a>
      <map><area href="/m" alt=" map  area " shape=rect><area alt=nohref></map>
      <iframe src="//x.org/embed">fallback</iframe><a name="anchor-only">x</a><a href="">e</a>`;
    expect(links(html)).toEqual([
      { href: 'f.html', tag: 'frame', text: '', rel: '' },
      { href: '/a', tag: 'a', text: 'A', rel: 'nofollow ugc' },
      { href: '/m', tag: 'area', text: 'map area', rel: '' },
      { href: '//x.org/embed', tag: 'iframe', text: '', rel: '' },
      { href: '', tag: 'a', text: 'e', rel: '' },
    ]);
  });

  it("keeps the first <title>'s text, not an <svg> tooltip's; decoded from UTF-8 bytes too", () => {
    expect(extractLinks('<svg><title>icon</title></svg><title>\n  Caf&eacute;   menu </title><title>second</title>').title).toBe('Café menu');
    const bytes = Buffer.from('<title>Привет &amp; мир</title>', 'utf8');
    expect(extractLinks(bytes).title).toBe('Привет & мир');
    expect(extractLinks('<p>untitled</p>').title).toBeNull();
    expect(extractLinks(`<title>${'x'.repeat(500)}</title>`, { maxText: 300 }).title).toHaveLength(300);
  });

  it('takes the first <base href> only, raw', () => {
    expect(extractLinks('<base target=_top><base href="../b/"><base href="/c/">').base).toBe('../b/');
    expect(extractLinks('<p>no base</p>').base).toBeNull();
  });

  it('anchor text: nested elements, collapsed whitespace, img alt, cap', () => {
    expect(texts('<a href=1><b>x</b>\n\t y&nbsp; <i>z</i> </a>')).toEqual(['x y z']);
    expect(texts('<a href=1><img src=i.png alt=" Logo "></a><a href=2><img alt=pic> text</a>')).toEqual(['Logo', 'text']);
    expect(texts('<a href=1><img src=i.png></a>')).toEqual(['']);
    expect(texts('<a href=1><div>Title</div><div>Sub</div>x<br>y</a>')).toEqual(['Title Sub x y']);
    expect(texts(`<a href=1>${'word '.repeat(100)}</a>`, 12)).toEqual(['word word wo']);
    expect(texts(`<a href=1>${'w'.repeat(400)}</a>`)[0]).toHaveLength(300);
    expect(texts(`<a href=1>${'😀'.repeat(10)}</a>`, 5)).toEqual(['😀😀']); // no half surrogate pair
  });

  it('ignores script/style/template text, and tags inside script are not links', () => {
    const html = `<a href=1>a<script>var s = "<a href='/evil'>no</a>";</script><style>.x{}</style>b</a>
      <script>document.write('<iframe src="/no">')</script><template><a href=/tpl>t</a></template>
      <noscript><a href=/ns>seen</a></noscript>`;
    expect(links(html)).toEqual([
      { href: '1', tag: 'a', text: 'ab', rel: '' },
      { href: '/ns', tag: 'a', text: 'seen', rel: '' },
    ]);
  });

  it('meta refresh target', () => {
    const r = (content: string) => extractLinks(`<meta http-equiv="Refresh" content="${content}">`).refresh;
    expect(r('5; url=/next')).toBe('/next');
    expect(r("0;URL='http://x.org/a b'")).toBe('http://x.org/a b');
    expect(r('3, /comma')).toBe('/comma');
    expect(r('0; url = &quot;/q&quot; trailing')).toBe('/q');
    expect(r('5')).toBeNull();
    expect(r('url=/no-time')).toBeNull();
    expect(extractLinks('<meta content="1;url=/a" http-equiv=refresh><meta http-equiv=refresh content="1;url=/b">').refresh).toBe('/a');
    expect(extractLinks('<meta name=refresh content="1;url=/a">').refresh).toBeNull();
  });

  it('an unclosed <a> ends at the next <a> and does not swallow the page', () => {
    const html = `<a href=1>one<div>two<a href=2>three<p>${'filler '.repeat(100000)}</p>`;
    const got = links(html);
    expect(got.map((l) => l.text.slice(0, 14))).toEqual(['one two', 'three filler f']);
    expect(got[1]!.text.length).toBeLessThanOrEqual(300);
    expect(texts('<a href=1>x<a href=2>y</a>z</a><a href=3>w')).toEqual(['x', 'y', 'w']);
  });

  it('decodes entities in attributes', () => {
    expect(links('<a href="/s?a=1&amp;b=2&lt;&#x41;">x</a>')[0]!.href).toBe('/s?a=1&b=2<A');
    expect(extractLinks('<base href="http://h/?a&amp;b">').base).toBe('http://h/?a&b');
  });

  it('survives broken HTML', () => {
    expect(() => extractLinks('<a href="/x\0y">a\0b</a><a href=\0><<<>>></a <div')).not.toThrow();
    expect(links('<a href="/x\0y">a\0b</a>')[0]!.href).toMatch(/^\/x.y$/);
    expect(links('<a href="/unterminated>text')).toEqual([]); // attribute never ends: no tag
    expect(extractLinks('').links).toEqual([]);
    expect(links('</a></a><a href=1>')).toEqual([{ href: '1', tag: 'a', text: '', rel: '' }]);
  });

  it('copes with a 5 MB attribute', () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const got = links(`<a title="${big}" href="/after">t</a><a href="/${big}">u</a>`);
    expect(got.map((l) => l.href.length)).toEqual([6, big.length + 1]);
  });
});

describe('extractLinks on UTF-8 bytes (how analysePage reads UTF-8 pages)', () => {
  const decoder = new TextDecoder('utf-8');
  const both = (html: string | Buffer) => {
    const bytes = typeof html === 'string' ? Buffer.from(html) : html;
    return { text: extractLinks(decoder.decode(bytes)), bytes: extractLinks(bytes) };
  };
  const cases: (string | Buffer)[] = [
    '<a href="/путь/страница?q=поиск">Ссылка  на\u00a0сайт</a> <a href="http://пример.рф/">Р Р Р</a>',
    '<a href="/s?a=1&amp;b=2&lt;&#x41;&#1087;&copy">x &amp; y &nbsp;z &#x43F;&#1088; &copy; &copy2 &notit;</a>',
    '<a href="/a&copy=1&amp=2">legacy references in attributes</a><a href=/e>😀 emoji &#128512;</a>',
    '<a href=1><img alt=" Логотип &amp; знак "></a><area href="/m" alt="карта"><base href="/база/">',
    '<meta http-equiv="refresh" content="0; url=/дальше?x=1&amp;y=2"><a href="/r" rel=" NoFollow ">т</a>',
    '<a href=1><div>Заголовок</div><div>Подзаголовок</div>à\u00a0Á</a><a href=2>\u0420\u00a0</a>',
    Buffer.concat([Buffer.from('<a href="/x'), Buffer.from([0xd0, 0x20, 0xff, 0xc3]), Buffer.from('">bad \xff bytes '), Buffer.from([0xe2, 0x82]), Buffer.from('</a>')]),
    `<a href=1>${'слово '.repeat(100)}</a><a href=2>${'😀'.repeat(200)}</a>`,
  ];

  it('gives what decoding the page first gives', () => {
    for (const c of cases) {
      const { text, bytes } = both(c);
      expect(bytes, String(c)).toEqual(text);
    }
    expect(both(cases[0]!).bytes.links[0]).toEqual({ href: '/путь/страница?q=поиск', tag: 'a', text: 'Ссылка на сайт', rel: '' });
    expect(both(cases[1]!).bytes.links[0]!.href).toBe('/s?a=1&b=2<Aп©');
  });

  it('on every page of a sample of the benchmark web', () => {
    // The generated web of `npm run bench`: 30–150 KB pages, UTF-8 text, entities, scripts.
    const pages = Array.from({ length: 30 }, (_, i) => renderPage(defaultWeb, `site${i % 20}.bench`, i < 20 ? '/' : pagePath(i), 8080).body);
    let links = 0;
    for (const p of pages) {
      const { text, bytes } = both(Buffer.from(p));
      expect(bytes).toEqual(text);
      links += bytes.links.length;
    }
    expect(links).toBeGreaterThan(30 * 50);
  });
});

describe('extractLinks feeds the page fingerprint its visible text', () => {
  // About 130 KB of text in two chunks: the page is parsed in 64 KB slices, so chunks and a
  // character's bytes straddle them.
  const words = 'Ёж walrus café '.repeat(4500);
  const html = `<title>T</title><p>${words}</p><script>var x = 1;</script><style>p{}</style><p>a &amp; b</p><div>${words}</div><a href="/x">x</a>`;
  const noLinks = { internal: [], external: [], bad: [] };
  const printOf = (feed: (h: ContentHash) => void) => {
    const h = new ContentHash();
    feed(h);
    return h.print(noLinks);
  };

  it('as the bytes of a UTF-8 page stand, references undecoded', () => {
    const fed = printOf((hash) => extractLinks(Buffer.from(html), { hash }));
    expect(fed).toEqual(printOf((h) => h.add(Buffer.from(`T${words}a &amp; b${words}x`).toString('latin1'))));
    expect(fed.textSize).toBe(Buffer.from(`T${words}a&amp;b${words}x`.replace(/\s/g, '')).length);
  });

  it('as decoded text for a page given as text', () => {
    expect(printOf((hash) => extractLinks(html, { hash }))).toEqual(printOf((h) => h.add(`T${words}a & b${words}x`)));
  });
});

/** A page path of the benchmark web that exists: one the start page of site 0 links to. */
function pagePath(i: number): string {
  const root = extractLinks(Buffer.from(renderPage(defaultWeb, 'site0.bench', '/', 8080).body).toString('utf8')).links;
  const internal = root.map((l) => l.href).filter((h) => h.startsWith('/') && h.endsWith('.html'));
  return internal[i % internal.length]!;
}

describe('extractLinks: bounded work on hostile markup', () => {
  it('refuses markup nested deeper than MAX_NESTING, in time linear in the page', () => {
    const t0 = performance.now();
    expect(() => extractLinks(`<html><body>${'<div>'.repeat(1_000_000)}`)).toThrow(MarkupLimit);
    expect(() => extractLinks(`<body>${'<b>'.repeat(MAX_NESTING + 1)}`)).toThrow(/^too-deep: markup nested more than 1024 elements$/);
    expect(performance.now() - t0).toBeLessThan(5_000); // before: minutes (a shift per element at the front of the open-element stack)
  });

  it('counts open elements, not elements: closed, implied-closed and void ones do not add up', () => {
    const deepOk = '<div>'.repeat(MAX_NESTING - 3); // with <body>, a <p> and a <br>: the limit exactly
    const page = `<body>${deepOk}${'<p>x'.repeat(5000)}${'<br><img src=x>'.repeat(5000)}${'<span></span>'.repeat(5000)}<a href="/end">end</a>`;
    expect(extractLinks(page).links.map((l) => l.href)).toEqual(['/end']);
  });

  it('gives up past its time budget', () => {
    // Stray end tags are each searched through the whole open-element stack.
    const page = `<body>${'<div>'.repeat(1000)}${'</x>'.repeat(400_000)}`;
    expect(() => extractLinks(page, { budgetMs: 1 })).toThrow(/^parse-timeout: markup took more than 1 ms to parse$/);
  });
});
