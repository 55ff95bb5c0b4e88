import { parse as parseCsv } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { UsageError } from '../errors.js';
import type { Site, SeedInput } from '../store/sites.js';
import { parseSeedUrl } from '../url/url.js';
import { scopes, type Scope } from '../url/scope.js';
import { parseUrlPattern } from '../url/url-pattern.js';

/**
 * A seed file: what `seeds import` reads and `seeds export` writes. One URL per line, or a table
 * whose header names its columns, `url` and any of these; a table `seeds export` wrote reads back
 * the same sites.
 */
export const SEED_COLUMNS = ['url', 'name', 'short', 'group', 'scope', 'include', 'exclude', 'sitemaps'] as const;
const DELIMITERS = [',', ';', '\t', '|'];

/** A site's own settings as typed (`seeds add`'s options, a seed file's cells): undefined means the setting's default. */
export interface SeedFields {
  name?: string;
  short?: string;
  group?: string;
  scope?: string;
  include: string[];
  exclude: string[];
  sitemaps?: string;
}

/** The seed, or what is wrong with its fields (a bad scope, pattern or sitemaps value). */
export function seedOf(url: URL, o: SeedFields): SeedInput | string {
  if (o.scope !== undefined && !(scopes as string[]).includes(o.scope)) return `scope must be one of ${scopes.join(', ')}, got '${o.scope}'`;
  if (o.sitemaps !== undefined && o.sitemaps !== 'yes' && o.sitemaps !== 'no') return `sitemaps must be yes or no, got '${o.sitemaps}'`;
  for (const p of [...o.include, ...o.exclude]) {
    const parsed = parseUrlPattern(p);
    if (typeof parsed === 'string') return `bad pattern '${p}': ${parsed}`;
  }
  return {
    // an empty name is none, as an empty cell is
    url, name: o.name || undefined, short: o.short || undefined, group: o.group || undefined, scope: (o.scope as Scope | undefined) ?? null,
    include: o.include, exclude: o.exclude, sitemaps: (o.sitemaps as 'yes' | 'no' | undefined) ?? null,
  };
}

export interface SeedRow extends SeedInput {
  line: number;
}

/**
 * The delimiter of a header line: one of , ; TAB | that splits it into plain words, one of them
 * 'url' (any case, quotes allowed). Null: the line is no header (then the file is a URL list).
 * Sniffed from the header rather than given to csv-parse as several delimiters, so a ';' file
 * keeps the commas inside its names.
 */
export function headerDelimiter(line: string): string | null {
  let best: { d: string; n: number } | null = null;
  for (const d of DELIMITERS) {
    const cells = line.split(d).map((c) => c.trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase());
    if (!cells.includes('url') || !cells.every((c) => /^[\p{L}\p{N} _-]*$/u.test(c) && !c.includes('://'))) continue;
    if (!best || cells.length > best.n) best = { d, n: cells.length };
  }
  return best?.d ?? null;
}

/**
 * A seed file's bytes as text: UTF-8 (a byte order mark skipped), or UTF-16 with its byte order
 * mark (what a spreadsheet's "Unicode text" export writes). Anything else is refused rather than
 * read with replacement characters in its names: the reason, as one line.
 */
export function decodeSeedFile(bytes: Uint8Array): string | { error: string } {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  const line = (at: number) => bytes.subarray(0, at).filter((b) => b === 0x0a).length + 1;
  const nul = bytes.indexOf(0);
  if (nul >= 0) return { error: `a NUL byte at line ${line(nul)}: not a text file (UTF-16 without a byte order mark?); save it as UTF-8` };
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const text = new TextDecoder('utf-8').decode(bytes);
    const bad = text.indexOf('\uFFFD');
    return { error: `not UTF-8 text (line ${text.slice(0, bad).split('\n').length}); save it as UTF-8` };
  }
}

/** 'https://hse.ru/en/ # the English site' → 'https://hse.ru/en/': a '#' after whitespace starts a comment. */
function withoutComment(cell: string): string {
  return cell.replace(/\s+#.*$/s, '').trim();
}

/** An include or exclude cell: its patterns, separated by whitespace (a regex spells a space \s). */
const patternList = (cell: string | undefined): string[] => (cell ?? '').split(/\s+/).filter(Boolean);

/**
 * Read a seed file: one URL per line ('#' comments, whole-line or after whitespace), or a table
 * whose header line names a 'url' column and any of SEED_COLUMNS, delimited by , ; TAB or | as its
 * header shows. Any invalid line rejects the whole file (nothing is written).
 */
export function parseSeedFile(text: string): SeedRow[] {
  const body = text.replace(/^\uFEFF/, '');
  const lines = body.split(/\r\n|\r|\n/);
  const headerAt = lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  const delimiter = headerAt < 0 ? null : headerDelimiter(lines[headerAt]!);
  let records: ({ line: number; url: string } & SeedFields)[];
  if (delimiter !== null) {
    let parsed: { record: Record<string, string>; info: { lines: number } }[];
    try {
      parsed = parseCsv(body, {
        delimiter, comment: '#', comment_no_infix: true, skip_empty_lines: true, trim: true, info: true, relax_column_count_less: true,
        columns: (h: string[]) => {
          const names = h.map((c) => c.trim().toLowerCase());
          const twice = names.find((c, i) => c !== '' && names.indexOf(c) !== i);
          // a second 'name' column would silently win over the first
          if (twice !== undefined) throw new UsageError(`nothing imported: the header names the column '${twice}' twice (line ${headerAt + 1})`);
          return names;
        },
      }) as never;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`nothing imported: not valid ${delimiter === '\t' ? 'TSV' : `'${delimiter}'-separated CSV`}: ${(err as Error).message}`);
    }
    records = parsed.map(({ record, info }) => ({
      line: info.lines,
      url: withoutComment(record.url ?? ''),
      name: record.name || undefined,
      short: record.short || undefined,
      group: record.group || undefined,
      scope: record.scope?.toLowerCase() || undefined,
      include: patternList(record.include),
      exclude: patternList(record.exclude),
      sitemaps: record.sitemaps?.toLowerCase() || undefined,
    }));
  } else {
    records = lines
      .map((l, i) => ({ line: i + 1, url: withoutComment(l), include: [], exclude: [] }))
      .filter((r) => r.url !== '' && !r.url.startsWith('#'));
  }
  const bad: string[] = [];
  const wrong: string[] = [];
  const rows: SeedRow[] = [];
  for (const r of records) {
    const url = parseSeedUrl(r.url);
    if (!url) {
      bad.push(`line ${r.line}: '${r.url}'`);
      continue;
    }
    const seed = seedOf(url, r);
    if (typeof seed === 'string') wrong.push(`line ${r.line}: ${seed}`);
    else rows.push({ ...seed, line: r.line });
  }
  if (bad.length) {
    const hint = delimiter === null && records.some((r) => /[,;\t|]/.test(r.url)) ? ` (a table needs a header line naming its columns: ${SEED_COLUMNS.join(',')})` : '';
    throw new UsageError(`nothing imported: not a usable http(s) URL at ${listed(bad)}${hint}`);
  }
  if (wrong.length) throw new UsageError(`nothing imported: ${listed(wrong)}`);
  return rows;
}

const listed = (items: string[]) => `${items.slice(0, 5).join(', ')}${items.length > 5 ? ` and ${items.length - 5} more` : ''}`;

/**
 * A pattern without whitespace, which separates a cell's patterns: a regex's as \uXXXX (the same
 * regex), a glob's percent-encoded (a URL holds no whitespace: that is what it can match).
 */
function spaceless(p: string): string {
  const hex = (c: string) => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  // an escaped space (\ ) is the space itself: its backslash goes with it
  const re = (_: string, bs: string, c: string) => `${bs.slice(bs.length % 2)}\\u${hex(c)}`;
  return p.startsWith('re:') ? p.replace(/(\\*)(\s)/g, re) : p.replace(/\s/g, (c) => encodeURIComponent(c));
}

/**
 * The sites as a seed file (RFC 4180 CSV, header row): each site's own settings, an empty cell
 * where it takes the setting's default, so the file means the same in a database set otherwise.
 */
export function seedFileText(sites: readonly Site[]): string {
  const patterns = (json: string | null) => (json === null ? '' : (JSON.parse(json) as string[]).map(spaceless).join(' '));
  return stringify(
    sites.map((s) => [s.url, s.name ?? '', s.short ?? '', s.group ?? '', s.scope ?? '', patterns(s.include), patterns(s.exclude), s.sitemaps ?? '']),
    // RFC 4180 quotes a cell with a line break (a bare \n too, which csv-stringify leaves bare
    // beside CRLF records); one with whitespace at either end is quoted so import keeps it
    { header: true, columns: [...SEED_COLUMNS], record_delimiter: 'windows', quoted_match: [/[\r\n]/, /^\s|\s$/] },
  );
}
