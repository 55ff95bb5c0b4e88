import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { neutralizeFormula } from './formula-guard.js';
import { screen } from '../markup/terminal-text.js';
import { cutCell, formatTable } from './table.js';

export type RowMode = 'table' | 'tsv' | 'json';

export interface RowOutput {
  mode: RowMode;
  /** TSV only: keep cells starting with = + - @ as they are (see formula-guard.ts) */
  raw: boolean;
}

type Cell = string | number | null;

// Page-controlled text is screened (terminal-text.ts), and long cells cut so a table stays readable.
const MAX_CELL = 70;

function screenCell(c: unknown): Cell {
  if (c === null || c === undefined) return null;
  if (typeof c === 'number') return c;
  const s = screen(String(c));
  return cutCell(s, MAX_CELL);
}

function tsvCell(c: unknown, raw: boolean): string {
  if (c === null || c === undefined) return '';
  if (typeof c !== 'string') return String(c);
  return (raw ? c : neutralizeFormula(c)).replace(/[\t\r\n]/g, ' ');
}

function* lines(header: string[], rows: Iterable<unknown[]>, o: RowOutput): Generator<string> {
  if (o.mode === 'json') {
    let first = true;
    yield '[';
    for (const r of rows) {
      yield `${first ? '\n' : ',\n'}  ${JSON.stringify(Object.fromEntries(header.map((h, i) => [h, r[i] ?? null])))}`;
      first = false;
    }
    yield first ? ']\n' : '\n]\n';
    return;
  }
  yield header.join('\t') + '\n';
  for (const r of rows) yield r.map((c) => tsvCell(c, o.raw)).join('\t') + '\n';
}

/**
 * Print rows: an aligned table (collects the rows: the caller limits them), or TSV / a JSON array
 * streamed with back-pressure, so a million rows piped into `head` or a slow consumer never pile up
 * in memory.
 */
export async function writeRows(header: string[], rows: Iterable<unknown[]>, o: RowOutput, out: Writable = process.stdout): Promise<void> {
  if (o.mode === 'table') {
    const cells = [...rows].map((r) => r.map(screenCell));
    // As wide as the terminal: rows longer than it would wrap and scramble the columns.
    out.write(formatTable(header, cells, true, { width: (out as { columns?: number }).columns || 80 }));
    return;
  }
  await pipeline(Readable.from(batched(lines(header, rows, o))), out, { end: false });
}

/** Join small pieces into ~64 KiB chunks: one write per line costs more than the query. */
export function* batched(parts: Iterable<string>): Generator<string> {
  let buf = '';
  for (const p of parts) {
    buf += p;
    if (buf.length >= 65536) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}
