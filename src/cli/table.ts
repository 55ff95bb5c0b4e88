import { screen } from '../markup/terminal-text.js';
import { sliceWhole } from '../markup/whole-chars.js';

/**
 * Rows as aligned columns on a terminal, tab-separated lines when piped (for cut/awk). On a
 * terminal, `fit.width` (its columns) makes the widest text columns narrower until a line fits,
 * their cells cut with '…'; numbers and the columns named in `fit.whole` are never cut.
 */
export function formatTable(header: string[], rows: (string | number | null)[][], tty: boolean, fit?: { width: number; whole?: string[] }): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '' : tty ? screen(String(c)) : String(c))));
  if (!tty) return [header, ...cells].map((r) => r.map((c) => c.replace(/[\t\r\n]/g, ' ')).join('\t')).join('\n') + '\n';
  const isNumber = (c: string) => /^-?\d+(\.\d+)?%?$/.test(c);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  if (fit !== undefined) {
    const fixed = header.map((h, i) => fit.whole?.includes(h) || cells.every((r) => r[i] === '' || isNumber(r[i]!)));
    fitWidths(widths, header.map((h, i) => (fixed[i] ? widths[i]! : Math.min(widths[i]!, Math.max(8, h.length)))), fit.width);
  }
  const cut = (c: string, w: number) => (c.length <= w ? c : sliceWhole(c, Math.max(0, w - 1)) + '…');
  const line = (r: string[]) =>
    r.map((c, i) => (isNumber(c) ? c.padStart(widths[i]!) : cut(c, widths[i]!).padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...cells.map(line)].join('\n') + '\n';
}


/** Narrow the widest column above its floor, one character at a time, until the line fits. */
function fitWidths(widths: number[], floor: number[], maxWidth: number): void {
  const total = () => widths.reduce((a, w) => a + w, 0) + 2 * (widths.length - 1);
  while (total() > maxWidth) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) return; // as narrow as it gets
    widths[widest]!--;
  }
}
