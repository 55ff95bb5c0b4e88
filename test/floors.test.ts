// The house rules, read from the code itself: every import points down the floors below, and SQL
// and the choice of SQL dialect stay on the database floors.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, floorOf, folderOf, importsOf, readSources, upwardImports } from '../scripts/floors.js';

/** The only places that hold SQL: the engine, beebot's tables, and the two features' own tables. */
const SQL_HOMES = ['db/', 'store/', 'refresh/refresh-log.ts', 'watch/watch-store.ts'];
/** The only place that decides between SQLite and PostgreSQL. */
const DIALECT_HOME = 'db/';

const sources = readSources(resolve(import.meta.dirname, '../src'));

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

  it('the network sits under the crawl and its siblings: check, refresh and watch import nothing from crawl/', () => {
    expect(['crawl', 'check', 'refresh', 'watch'].filter((d) => !(floorOf('net') < floorOf(d)))).toEqual([]);
    const fromCrawl = sources
      .filter((f) => ['check', 'refresh', 'watch'].includes(folderOf(f.path)))
      .flatMap((f) => importsOf(f.path, f.text).filter((to) => folderOf(to) === 'crawl').map((to) => `${f.path} -> ${to}`));
    expect(fromCrawl).toEqual([]);
  });

  it('the network imports nothing from the store: the shapes both use sit on a floor below them', () => {
    const fromStore = sources
      .filter((f) => folderOf(f.path) === 'net')
      .flatMap((f) => importsOf(f.path, f.text).filter((to) => folderOf(to) === 'store').map((to) => `${f.path} -> ${to}`));
    expect(fromStore).toEqual([]);
  });

  it('crawl/ holds the crawl loop and its coordinators alone, and schedules through one door: schedule/scheduler.ts', () => {
    const crawl = sources.filter((f) => folderOf(f.path) === 'crawl');
    expect(crawl.map((f) => f.path).sort()).toEqual(['crawl/coordinator.ts', 'crawl/crawler.ts', 'crawl/shared-coordinator.ts']);
    // What crawl/ runs of schedule/ (an import not marked `import type`); the types of the data that crosses the door may come from anywhere in it.
    const runs = crawl.flatMap((f) =>
      [...f.text.matchAll(/(?:^|\n)\s*import\s+(?!type\b)[^'";]*?from\s*'(\.[^']+)'/g)]
        .map((m) => importsOf(f.path, `import x from '${m[1]}';`)[0]!)
        .filter((to) => folderOf(to) === 'schedule')
        .map((to) => `${f.path} -> ${to}`),
    );
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.filter((x) => !x.endsWith(' -> schedule/scheduler.ts'))).toEqual([]);
  });

  it('no two files import each other, directly or round a circle', () => {
    expect(circles(sources)).toEqual([]);
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
