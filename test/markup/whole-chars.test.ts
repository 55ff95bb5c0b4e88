// The first characters of a text, never half of a surrogate pair (pure).
import { describe, expect, it } from 'vitest';
import { sliceWhole } from '../../src/markup/whole-chars.js';

describe('sliceWhole', () => {
  it('cuts at max UTF-16 units; a text no longer than max is whole', () => {
    expect(sliceWhole('abcdef', 3)).toBe('abc');
    expect(sliceWhole('ab', 5)).toBe('ab');
    expect(sliceWhole('abc', 0)).toBe('');
  });

  it('keeps a surrogate pair whole or leaves it out: one unit fewer when the cut would fall inside it', () => {
    // '😀' is two UTF-16 units: the cut at 2 falls between them
    expect(sliceWhole('a😀b', 1)).toBe('a');
    expect(sliceWhole('a😀b', 2)).toBe('a');
    expect(sliceWhole('a😀b', 3)).toBe('a😀');
    expect(sliceWhole('😀😀', 3)).toBe('😀');
    expect(sliceWhole('😀', 1)).toBe('');
  });

  it('counts UTF-16 units, not what a reader sees as one character: a flag or an accent may lose its second code point', () => {
    expect(sliceWhole('\u{1F1FA}\u{1F1F8}', 3)).toBe('\u{1F1FA}'); // the regional indicators U and S: the flag of the US
    expect(sliceWhole('e\u0301', 1)).toBe('e'); // e and a combining acute accent
  });
});
