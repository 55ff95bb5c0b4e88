// Text for HTML content and quoted attribute values (pure): the map's and the check's pages.
import { describe, expect, it } from 'vitest';
import { esc } from '../../src/markup/html-text.js';

describe('esc', () => {
  it('escapes the five characters that could end content or a quoted attribute', () => {
    expect(esc(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
  });

  it('replaces the controls HTML calls parse errors, keeping tab, newline, form feed and return', () => {
    expect(esc('a\u0000b\u0008c\u000bd\u001fe\u007ff\u0085g\u009fh')).toBe('a\ufffdb\ufffdc\ufffdd\ufffde\ufffdf\ufffdg\ufffdh');
    expect(esc('\t\n\u000c\r')).toBe('\t\n\u000c\r');
  });

  it('replaces lone surrogates, keeping whole pairs', () => {
    expect(esc('\ud800x\u{1F600}\udc00')).toBe('\ufffdx\u{1F600}\ufffd');
  });

  it('gives every value as text: null and undefined as nothing, 0 as 0', () => {
    expect([esc(null), esc(undefined), esc(0), esc(false)]).toEqual(['', '', '0', 'false']);
  });
});
