// Text as a terminal shows it safely (pure): control and bidi characters as '?'.
import { describe, expect, it } from 'vitest';
import { screen } from '../../src/markup/terminal-text.js';

describe('screen', () => {
  it('shows every C0 control (tab and newline too), DEL and every C1 control as ?', () => {
    const controls = [...Array.from({ length: 0x20 }, (_, i) => i), 0x7f, ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)].map((c) => String.fromCharCode(c)).join('');
    expect(screen(controls)).toBe('?'.repeat(0x20 + 1 + 0x20));
  });

  it("defuses an escape sequence: its ESC and BEL go, its printable rest stays as text", () => {
    expect(screen('a\x1b]0;pwned\x07\x1b[31mred')).toBe('a?]0;pwned??[31mred');
  });

  it('shows the bidi controls as ?: marks, embeddings, overrides and isolates', () => {
    for (const c of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) expect(screen(`a${c}b`)).toBe('a?b');
  });

  it('leaves printable text alone: accents, other scripts, emoji, a no-break space', () => {
    const text = 'Café Ünïversität, Москва, 東京, عربي 😀\u00a0!';
    expect(screen(text)).toBe(text);
  });
});
