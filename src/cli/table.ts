import { screen } from '../markup/terminal-text.js';
import { sliceWhole } from '../markup/whole-chars.js';
import { cutUrl } from '../markup/cut-url.js';

/** A cell cut to `w` characters with '…': a URL by whole path segments from its middle (cut-url.ts). */
export function cutCell(c: string, w: number): string {
  if (c.length <= w) return c;
  return URL_CELL.test(c) ? cutUrl(c, w) : sliceWhole(c, Math.max(0, w - 1)) + '…';
}
const URL_CELL = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const URL_FLOOR = 30;

/**
 * Rows as aligned columns on a terminal, tab-separated lines when piped (for cut/awk). On a
 * terminal, `fit.width` (its columns) makes the widest text columns narrower until a line fits,
 * their cells cut with '…'; numbers and the columns named in `fit.whole` are never cut. Columns
 * that still do not fit are left out from the right, and a last line names them.
 */
export function formatTable(header: string[], rows: (string | number | null)[][], tty: boolean, fit?: { width: number; whole?: string[] }): string {
  let cells = rows.map((r) => r.map((c) => (c === null ? '' : tty ? screen(String(c)) : String(c))));
  if (!tty) return [header, ...cells].map((r) => r.map((c) => c.replace(/[\t\r\n]/g, ' ')).join('\t')).join('\n') + '\n';
  const isNumber = (c: string) => /^-?\d+(\.\d+)?%?$/.test(c);
  let widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  let shown = header;
  if (fit !== undefined) {
    const fixed = header.map((h, i) => fit.whole?.includes(h) || cells.every((r) => r[i] === '' || isNumber(r[i]!)));
    // A URL cut below 30 characters no longer tells where it points: a column of URLs keeps 30.
    const least = (i: number) => Math.max(/url/i.test(header[i]!) ? URL_FLOOR : 8, header[i]!.length);
    let floor = header.map((_h, i) => (fixed[i] ? widths[i]! : Math.min(widths[i]!, least(i))));
    let n = header.length;
    while (n > 1 && floor.slice(0, n).reduce((a, w) => a + w, 0) + 2 * (n - 1) > fit.width) n--;
    [shown, cells, widths, floor] = [header.slice(0, n), cells.map((r) => r.slice(0, n)), widths.slice(0, n), floor.slice(0, n)];
    fitWidths(widths, floor, fit.width);
  }
  const line = (r: string[]) =>
    r.map((c, i) => (isNumber(c) ? c.padStart(widths[i]!) : cutCell(c, widths[i]!).padEnd(widths[i]!))).join('  ').trimEnd();
  const left = header.slice(shown.length);
  const note = left.length ? [cutCell(`not shown (--json has them): ${left.join(', ')}`, fit!.width)] : [];
  return [line(shown), ...cells.map(line), ...note].join('\n') + '\n';
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
