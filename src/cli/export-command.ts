import { Readable, type Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { stringify } from 'csv-stringify';
import { UsageError } from '../errors.js';
import { gexf } from '../site-graph/gexf.js';
import { graphml } from '../site-graph/graphml.js';
import { edgeColumns, edgeRow, nodeColumns, nodeRow, siteGraph, type NodeLevel } from '../site-graph/site-graph.js';
import { interlinkColumns, interlinkRow, interlinks } from '../site-graph/interlinks.js';
import { colinkColumns, colinkRow, colinks } from '../site-graph/colinks.js';
import { readNetwork } from '../site-graph/site-network.js';
import type { Db } from '../db/db.js';
import { exportColumns, exportRows } from '../store/export.js';
import { linkKinds, type FilterFlags, type LinkKind } from '../store/link-filter.js';
import { VERSION } from '../store/settings.js';
import { withReadDb } from './context.js';
import { neutralizeFormula } from './formula-guard.js';
import { batched } from './row-output.js';
import { counted } from '../markup/counted.js';
import { quietOption, streamWhole, toldWritten } from './write-file.js';
import { addFilterOptions, readFilter } from './filter-options.js';

type Format = 'csv' | 'jsonl' | 'gexf' | 'graphml';
type GraphTable = 'edges' | 'nodes' | 'interlinks' | 'colinks';
type TableKind = LinkKind | GraphTable;
const graphTables: GraphTable[] = ['edges', 'nodes', 'interlinks', 'colinks'];

interface ExportFlags extends FilterFlags {
  kind?: TableKind;
  site?: string;
  node?: NodeLevel;
  bom?: boolean;
  raw?: boolean;
  quiet?: boolean;
}

const FORMATS: [RegExp, Format][] = [[/\.csv$/i, 'csv'], [/\.jsonl$/i, 'jsonl'], [/\.gexf$/i, 'gexf'], [/\.graphml$/i, 'graphml']];

export function exportCommand(): Command {
  const c = new Command('export')
    .description(
      'write to <file>, format by extension: .csv (RFC 4180, header row) or .jsonl for links (--kind), the edge or node list, ' +
        'the site-to-site interlinks or the co-links (pairs of sites and the outside hosts both link to); ' +
        ".gexf or .graphml for the site graph; '-' writes CSV to stdout",
    )
    .argument('<file>')
    .addOption(new Option('--kind <kind>', 'table to export (default external)').choices([...linkKinds, ...graphTables]));
  return addFilterOptions(c)
    .addOption(new Option('--node <level>', 'site graph (.gexf, .graphml, edges, nodes, colinks): outside nodes are hosts or registrable domains').choices(['host', 'domain']))
    .option('--bom', 'CSV: start with a UTF-8 byte order mark (for spreadsheet programs)')
    .option('--raw', "CSV: keep cells starting with = + - @ as they are (default: prefixed with ', against formula injection)")
    .addOption(quietOption())
    .action(async (file: string, flags: ExportFlags, cmd: Command) => {
      const format: Format | null = file === '-' ? 'csv' : (FORMATS.find(([re]) => re.test(file))?.[1] ?? null);
      if (!format) throw new UsageError(`cannot tell the format of '${file}': use a .csv, .jsonl, .gexf or .graphml name, or '-'`);
      const graphFile = format === 'gexf' || format === 'graphml';
      if (graphFile && flags.kind !== undefined) throw new UsageError(`a .${format} file holds the site graph: drop --kind`);
      const kind: TableKind | 'graph' = graphFile ? 'graph' : (flags.kind ?? 'external');
      const linkKind = (linkKinds as string[]).includes(kind);
      const filtered = ['site', 'host', 'grep', 'level', 'since'].filter((k) => flags[k as keyof ExportFlags] !== undefined);
      if (!linkKind && filtered.length) throw new UsageError(`--${filtered[0]} filters links; the site graph is always whole`);
      if (linkKind && flags.node) throw new UsageError('--node applies to the site graph (.gexf, .graphml, --kind edges, nodes, interlinks or colinks)');
      if (format !== 'csv' && (flags.bom || flags.raw)) throw new UsageError(`--${flags.bom ? 'bom' : 'raw'} applies to CSV only`);

      await withReadDb(cmd, async (db) => {
        const body = linkKind
          ? table(format, exportColumns(kind as LinkKind), exportRows(db, kind as LinkKind, readFilter(db, flags, kind as LinkKind)), flags)
          : graphBody(db, format, kind as 'graph' | GraphTable, flags.node ?? 'host', flags);
        await write(file, body);
        toldWritten(file, body.written(), flags.quiet);
      });
    });
}

/** What an export writes: rows and, for CSV and JSON Lines, the encoder they pass through. */
interface Body {
  source: Readable;
  encode?: Transform;
  /** What was written, once it has been: "11,224 rows", "the site graph: 9 nodes, 12 edges". */
  written: () => string;
}

function graphBody(db: Db, format: Format, kind: 'graph' | GraphTable, level: NodeLevel, flags: ExportFlags): Body {
  const g = siteGraph(db, level);
  const description = `beebot site graph: ${g.siteCount} target sites and the ${level === 'host' ? 'hosts' : 'registrable domains'} they link to; edge weight = external links`;
  if (format === 'gexf' || format === 'graphml') {
    // Laid out first, as the report lays it out: Gephi opens the report's picture.
    const look = new Map(readNetwork(db, level).network.nodes.map((x) => [x.id, x]));
    const n = { nodes: 0, edges: 0 };
    const tallied = { ...g, nodes: () => tally(g.nodes(), () => n.nodes++), edges: () => tally(g.edges(), () => n.edges++) };
    const text = format === 'gexf' ? gexf(tallied, { creator: `beebot ${VERSION}`, description, date: new Date() }, look) : graphml(tallied, { description }, look);
    return { source: Readable.from(batched(text)), written: () => `the site graph (${counted(n.nodes, 'node')}, ${counted(n.edges, 'edge')})` };
  }
  switch (kind) {
    case 'edges':
      return table(format, [...edgeColumns], map(g.edges(), edgeRow), flags);
    case 'interlinks':
      return table(format, [...interlinkColumns], map(interlinks(g.edges(), g.siteIds), interlinkRow), flags);
    case 'colinks':
      return table(format, [...colinkColumns], map(colinks(g.edges(), g.siteIds), colinkRow), flags);
    default:
      return table(format, [...nodeColumns], map(g.nodes(), nodeRow), flags);
  }
}

/** Rows as RFC 4180 CSV (CRLF, header row, quoted when needed) or JSON Lines, streamed. */
function table(format: Format, columns: string[], all: Iterable<unknown[]>, flags: ExportFlags): Body {
  let n = 0;
  const rows = tally(all, () => n++);
  const written = () => counted(n, 'row');
  if (format === 'jsonl') return { source: Readable.from(batched(jsonLines(columns, rows))), written };
  const encode = stringify({
    header: true,
    columns,
    bom: Boolean(flags.bom),
    record_delimiter: 'windows',
    // With CRLF records a bare \n in a field would otherwise go unquoted.
    quoted_match: /[\r\n]/,
    cast: flags.raw ? {} : { string: (v: string) => neutralizeFormula(v) },
  });
  return { source: Readable.from(rows), encode, written };
}

function* jsonLines(columns: string[], rows: Iterable<unknown[]>): Generator<string> {
  for (const row of rows) yield JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, row[i] ?? null]))) + '\n';
}

function streams(body: Body, dest: Writable, opts: { end?: boolean } = {}): Promise<void> {
  return body.encode ? pipeline(body.source, body.encode, dest, opts) : pipeline(body.source, dest, opts);
}

async function write(file: string, body: Body): Promise<void> {
  if (file === '-') return streams(body, process.stdout as Writable, { end: false });
  // Write beside the target and rename: a failed export never leaves a half-written file.
  await streamWhole(file, (dest) => streams(body, dest));
}

/** The items as they are, each counted by `count` as it passes. */
function* tally<T>(items: Iterable<T>, count: () => void): Generator<T> {
  for (const x of items) {
    count();
    yield x;
  }
}

function* map<T>(items: Iterable<T>, f: (x: T) => unknown[]): Generator<unknown[]> {
  for (const x of items) yield f(x);
}
