/** Rows as aligned columns on a terminal, tab-separated lines when piped (for cut/awk). */
export function formatTable(header: string[], rows: (string | number | null)[][], tty: boolean): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '' : String(c))));
  if (!tty) return [header, ...cells].map((r) => r.map((c) => c.replace(/[\t\r\n]/g, ' ')).join('\t')).join('\n') + '\n';
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (/^-?\d+(\.\d+)?%?$/.test(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...cells.map(line)].join('\n') + '\n';
}
