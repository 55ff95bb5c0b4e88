import { describe, expect, it } from 'vitest';
import { urlTrap } from '../../src/url/traps.js';

const trap = (s: string) => urlTrap(new URL(s).href);

describe('urlTrap', () => {
  it('passes ordinary URLs', () => {
    for (const u of ['https://spbu.ru/', 'https://spbu.ru/news/2020/01/01/item.html', 'https://x.org/a/b/a/c?q=1', 'https://x.org/a/a/b']) {
      expect(trap(u), u).toBeNull();
    }
  });
  it('reads the path of a serialized URL, query and fragment excluded', () => {
    expect(trap('https://x.org/a/b/?q=/a/b/a/b/a/b')).toBeNull();
    expect(trap('https://x.org')).toBeNull();
    expect(trap('https://user@x.org:8080/a/a/a?x')).toBe('repeated-path-segments');
  });
  it('catches overlong URLs, deep paths and repeated segment runs', () => {
    expect(trap(`https://x.org/${'a'.repeat(3000)}`)).toBe('url-too-long');
    expect(trap(`https://x.org/${Array.from({ length: 30 }, (_, i) => `s${i}`).join('/')}`)).toBe('path-too-deep');
    expect(trap('https://x.org/cal/a/b/a/b/a/b/')).toBe('repeated-path-segments');
    expect(trap('https://x.org/x/x/x')).toBe('repeated-path-segments');
    expect(trap('https://x.org/p/a/b/c/a/b/c/a/b/c/end')).toBe('repeated-path-segments');
  });
});
