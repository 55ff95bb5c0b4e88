// The code's floors, read from its own import lines: which folder sits on which floor, and a
// table of folders (files, lines, whom each imports). test/floors.test.ts holds the code to them.
//   node dist/scripts/floors.js [src-dir]     (npm run floors)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { helpFromHeader } from './script-help.js';
import { fileURLToPath } from 'node:url';

/** Bottom first. A folder may import from its own folder and from any floor below its own. */
export const FLOORS: readonly (readonly string[])[] = [
  ['errors', 'types'],
  ['time', 'url', 'markup'],
  ['db'],
  ['schedule', 'params', 'search', 'map'],
  ['page'],
  ['pull'],
  ['store', 'net'],
  ['crawl'],
  ['check', 'replay', 'site-graph', 'refresh', 'report'],
  ['watch'],
  ['cli'],
];

export interface Source {
  /** the path under src, with '/' */
  path: string;
  text: string;
}

export function readSources(src: string): Source[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
    });
  return walk(src).map((p) => ({ path: relative(src, p).replaceAll('\\', '/'), text: readFileSync(p, 'utf8') }));
}

/** The folder under src a file belongs to (a file at the top is a folder of its own). */
export const folderOf = (path: string): string => path.split('/')[0]!.replace(/\.ts$/, '');
export const floorOf = (folder: string): number => FLOORS.findIndex((f) => f.includes(folder));

/** Relative imports of a file (static, type-only, re-exports and dynamic), as paths under src. */
export function importsOf(path: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specs.map((s) => join(dirname(path), s).replaceAll('\\', '/').replace(/\.js$/, '.ts'));
}

/** Every import that runs sideways or up, as "from -> to". */
export function upwardImports(sources: readonly Source[]): string[] {
  const bad: string[] = [];
  for (const f of sources) {
    const from = folderOf(f.path);
    for (const to of importsOf(f.path, f.text)) {
      const target = folderOf(to);
      if (target !== from && !(floorOf(target) >= 0 && floorOf(target) < floorOf(from))) bad.push(`${f.path} -> ${to}`);
    }
  }
  return bad;
}

/** Files that import each other, directly or round a circle. */
export function circles(sources: readonly Source[]): string[] {
  const graph = new Map(sources.map((f) => [f.path, importsOf(f.path, f.text).filter((t) => t !== f.path)]));
  const state = new Map<string, 'open' | 'done'>();
  const found: string[] = [];
  const visit = (p: string, trail: string[]): void => {
    if (state.get(p) === 'done') return;
    if (state.get(p) === 'open') return void found.push([...trail.slice(trail.indexOf(p)), p].join(' -> '));
    state.set(p, 'open');
    for (const q of graph.get(p) ?? []) visit(q, [...trail, p]);
    state.set(p, 'done');
  };
  for (const p of graph.keys()) visit(p, []);
  return found;
}

/** One line a folder, top floor first: floor, files, lines, and the folders it imports (with counts). */
export function folderTable(sources: readonly Source[]): string[] {
  const rows = new Map<string, { files: number; lines: number; imports: Map<string, number> }>();
  for (const f of sources) {
    const folder = folderOf(f.path);
    const row = rows.get(folder) ?? { files: 0, lines: 0, imports: new Map() };
    row.files++;
    row.lines += f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0);
    for (const to of importsOf(f.path, f.text)) {
      const t = folderOf(to);
      if (t !== folder) row.imports.set(t, (row.imports.get(t) ?? 0) + 1);
    }
    rows.set(folder, row);
  }
  const order = [...rows.keys()].sort((a, b) => floorOf(b) - floorOf(a) || a.localeCompare(b));
  const up = new Set(upwardImports(sources).map((x) => `${folderOf(x.split(' -> ')[0]!)}>${folderOf(x.split(' -> ')[1]!)}`));
  return [
    'floor\tfolder\tfiles\tlines\timports (files importing; ^ runs up)',
    ...order.map((d) => {
      const r = rows.get(d)!;
      const imports = [...r.imports].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}${up.has(`${d}>${t}`) ? '^' : ''}`);
      return `${floorOf(d) < 0 ? '?' : floorOf(d)}\t${d}\t${r.files}\t${r.lines}\t${imports.join(', ')}`;
    }),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  helpFromHeader(import.meta.url);
  const src = resolve(process.argv[2] ?? 'src');
  const sources = readSources(src);
  for (const line of folderTable(sources)) console.log(line);
  const up = upwardImports(sources);
  const round = circles(sources);
  console.log(`\n${sources.length} files; ${up.length} imports run up; ${round.length} circles`);
  for (const x of [...up, ...round]) console.log(`  ${x}`);
}
