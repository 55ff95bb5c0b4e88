// Text for XML attribute values and element content (pure): the map's, the check's and the graph
// exports' files are read back by real XML parsers.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { xmlText } from '../../src/markup/xml.js';

describe('xmlText', () => {
  it('escapes XML and replaces characters XML 1.0 cannot hold', () => {
    expect(xmlText(`a&b<c>"d'\te\n`)).toBe('a&amp;b&lt;c&gt;&quot;d&apos;&#9;e&#10;');
    expect(xmlText('x\u0001y\ud800z\u{1F600}')).toBe('x\ufffdy\ufffdz\u{1F600}');
    expect(XMLValidator.validate(`<a b="${xmlText('\u0000<&>"')}">${xmlText('\u0007')}</a>`)).toBe(true);
  });

  it('replaces form feed, U+FFFE/U+FFFF and lone surrogates of either half, keeping whole pairs', () => {
    expect(xmlText('\u000c|\u001f|\ufffe|\uffff|\udc00|\ud83d\ude00|\ud83d')).toBe('\ufffd|\ufffd|\ufffd|\ufffd|\ufffd|\u{1F600}|\ufffd');
  });

  it('gives every value as text: null and undefined as nothing', () => {
    expect([xmlText(null), xmlText(undefined), xmlText(42), xmlText(false)]).toEqual(['', '', '42', 'false']);
  });

  it('reads back as the same text in an attribute and in content: tab, newline and return survive attribute normalization', () => {
    const text = `a & b < c > "d" 'e'\tf\ng\rh \u{1F600} é`;
    const doc = `<a b="${xmlText(text)}">${xmlText(text)}</a>`;
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', htmlEntities: true, trimValues: false }).parse(doc) as { a: { b: string; '#text': string } };
    expect(parsed.a).toEqual({ b: text, '#text': text });
  });
});
