// A URL shortened for a narrow column (pure): whole path segments left out from the middle.
import { describe, expect, it } from 'vitest';
import { cutUrl } from '../../src/markup/cut-url.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('cutUrl', () => {
  const u = 'https://docs.example.org/en/3.2/topics/auth/index.html';
  it('leaves out whole folders from the middle, keeping the host and the last segment', () => {
    expect(cutUrl(u, 80)).toBe(u);
    expect(cutUrl(u, 45)).toBe('https://docs.example.org/en/3.2/…/index.html');
    expect(cutUrl(u, 40)).toBe('https://docs.example.org/en/…/index.html');
    expect(cutUrl(u, 37)).toBe('https://docs.example.org/…/index.html');
  });

  it('keeps the folders that fit, after a slash, when the last segment does not; cuts the end when the host does not fit', () => {
    expect(cutUrl(u, 33)).toBe('https://docs.example.org/en/3.2/…');
    expect(cutUrl(u, 30)).toBe('https://docs.example.org/en/…');
    expect(cutUrl('https://a.example/' + 'x'.repeat(40), 20)).toBe('https://a.example/…');
    expect(cutUrl('https://a-long-host-name.example/x', 20)).toBe('https://a-long-host…');
    expect(cutUrl('not a url at all, just long text', 10)).toBe('not a url…');
  });

  it('at the limit: a URL exactly max long is left whole, one character more is cut', () => {
    expect(cutUrl(u, u.length)).toBe(u);
    expect(cutUrl(u, u.length - 1)).toBe('https://docs.example.org/en/3.2/topics/…/index.html');
  });

  it('keeps the query and fragment with the last segment, or leaves them out with it', () => {
    expect(cutUrl('https://a.example/a/b/c?q=1#top', 29)).toBe('https://a.example/…/c?q=1#top');
    expect(cutUrl('https://a.example/a/b/c?q=1#top', 28)).toBe('https://a.example/a/b/…');
    expect(cutUrl('https://a.example/a/b?q=' + 'y'.repeat(40), 30)).toBe('https://a.example/a/…');
    expect(cutUrl('https://a.example?' + 'q'.repeat(20), 20)).toBe('https://a.example/…');
  });

  it('is never longer than max and never cuts an emoji in two', () => {
    const urls = [u, 'https://a.example/😀/b😀c/d?😀=1#x', 'http://h/a/b/c/d/e/f/g', 'not a url 😀😀😀 at all', 'https://x.example/a//b///c', 'mailto:someone@example.org?subject=hello'];
    for (const url of urls) {
      for (let max = 1; max <= url.length; max++) {
        const cut = cutUrl(url, max);
        expect(cut.length, `${url} at ${max}`).toBeLessThanOrEqual(max);
        expect(cut, `${url} at ${max}`).not.toMatch(LONE_SURROGATE);
      }
    }
    expect(cutUrl('😀😀😀😀😀', 4)).toBe('😀…');
  });
});
