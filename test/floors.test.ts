// The house rules, read from the code itself: every import points down the floors below, and SQL
// and the choice of SQL dialect stay on the database floors.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

/** Bottom first. A folder may import from its own folder and from any floor below its own. */
export const FLOORS: readonly (readonly string[])[] = [
  ['errors', 'types'],
  ['time', 'url', 'markup'],
  ['db'],
  ['bandit', 'order', 'focus', 'params', 'search', 'map'],
  ['page'],
  ['store'],
  ['crawl'],
  ['check', 'graph', 'refresh', 'report'],
  ['watch'],
  ['cli'],
];

/** The only places that hold SQL: the engine, beebot's tables, and the two features' own tables. */
const SQL_HOMES = ['db/', 'store/', 'refresh/refresh-log.ts', 'watch/watch-store.ts'];
/** The only place that decides between SQLite and PostgreSQL. */
const DIALECT_HOME = 'db/';

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });

const sources = files(SRC).map((p) => ({ path: relative(SRC, p).replaceAll('\\', '/'), text: readFileSync(p, 'utf8') }));
const folderOf = (path: string): string => path.split('/')[0]!.replace(/\.ts$/, '');
const floorOf = (folder: string): number => FLOORS.findIndex((f) => f.includes(folder));

/** Relative imports of a file (static, type-only, re-exports and dynamic), as paths under src. */
export function importsOf(path: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specs.map((s) => relative(SRC, resolve(SRC, dirname(path), s)).replaceAll('\\', '/').replace(/\.js$/, '.ts'));
}

/** Every import that runs sideways or up: "from -> to". */
export function upwardImports(files: readonly { path: string; text: string }[]): string[] {
  const bad: string[] = [];
  for (const f of files) {
    const from = folderOf(f.path);
    for (const to of importsOf(f.path, f.text)) {
      const target = folderOf(to);
      if (target !== from && !(floorOf(target) < floorOf(from))) bad.push(`${f.path} -> ${to}`);
    }
  }
  return bad;
}

/** Code lines (comments dropped) that hold SQL. */
const SQL = /\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(UNIQUE\s+)?(TABLE|INDEX)|\.prepare\(|\.exec\(\s*['"`])/;
const DIALECT = /\bdialect\(|\.kind\s*[!=]==\s*'(pg|sqlite)'|\bkind\s*===?\s*'pg'/;
const codeLines = (text: string): string[] =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').split('\n').map((l) => l.replace(/(^|\s)\/\/.*$/, ''));

describe('floors', () => {
  it('every folder under src sits on a floor', () => {
    const unplaced = [...new Set(sources.map((f) => folderOf(f.path)))].filter((d) => floorOf(d) < 0);
    expect(unplaced).toEqual([]);
  });

  it('every import points to the same folder or a floor below', () => {
    expect(upwardImports(sources)).toEqual([]);
  });

  it('an import that runs up is caught', () => {
    const planted = [{ path: 'store/sites.ts', text: "import { crawl } from '../crawl/crawler.js';\n" }];
    expect(upwardImports(planted)).toEqual(['store/sites.ts -> crawl/crawler.ts']);
  });

  it('no two files import each other, directly or round a circle', () => {
    const graph = new Map(sources.map((f) => [f.path, importsOf(f.path, f.text).filter((t) => t !== f.path)]));
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (p: string, trail: string[]): void => {
      if (state.get(p) === 'done') return;
      if (state.get(p) === 'open') return void circles.push([...trail.slice(trail.indexOf(p)), p].join(' -> '));
      state.set(p, 'open');
      for (const q of graph.get(p) ?? []) visit(q, [...trail, p]);
      state.set(p, 'done');
    };
    for (const p of graph.keys()) visit(p, []);
    expect(circles).toEqual([]);
  });

  it('SQL lives only on the database floors and in the two feature stores', () => {
    const stray = sources
      .filter((f) => !SQL_HOMES.some((h) => f.path.startsWith(h)))
      .flatMap((f) => codeLines(f.text).flatMap((l, i) => (SQL.test(l) ? [`${f.path}:${i + 1}: ${l.trim()}`] : [])));
    expect(stray).toEqual([]);
  });

  it('the SQL dialect is chosen in src/db only', () => {
    const stray = sources
      .filter((f) => !f.path.startsWith(DIALECT_HOME))
      .flatMap((f) => codeLines(f.text).flatMap((l, i) => (DIALECT.test(l) ? [`${f.path}:${i + 1}: ${l.trim()}`] : [])));
    expect(stray).toEqual([]);
  });
});
