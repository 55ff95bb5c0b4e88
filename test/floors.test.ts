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

/** The one file that decides a link's fate; the crawl and the store record what it returns. */
const FATE_HOME = 'page/link-fate.ts';
/**
 * What makes a link's fate, in code: the rules it is decided by (their definitions aside), and the
 * fate values (a hold, a skip, a bad link, a query trap, robots.txt's refusal) as values, not types.
 */
const FATE_MADE: readonly (readonly [string, RegExp])[] = [
  ['a rule of the fate called', /(?<!function\s+)\b(siteVerdict|urlTrap|skippedExtension)\(/],
  ['a hold or a skip built', /\bstatus:\s*'(trap|file|ignored|excluded|skipped|robots-denied)'\s*[,}]/],
  ['a bad link built', /\bkind:\s*'bad'\s*[,}]/],
  ['the query trap named', /'query-variants'/],
  ['a dead end named', /[`'"]dead end\b/],
  ["robots.txt's refusal named", /(?<!\|\s*)'robots-denied'(?!\s*\|)/],
];
/**
 * Where a rule of the fate is called outside its home, and why: the migration that gives stored
 * pages to the sites nested in their bounds runs on the database floor, below the page floor, and
 * holds the pages a new owner's patterns leave out by the scope rule itself (url/scope.ts).
 */
const FATE_ELSEWHERE: ReadonlyMap<string, RegExp> = new Map([['db/page-owners.ts', /\bsiteVerdict\(/]]);

/** Each line outside the fate's home that makes a fate, as "path:line: what: code". */
function fateMadeElsewhere(files: readonly { path: string; text: string }[]): string[] {
  return files
    .filter((f) => f.path !== FATE_HOME)
    .flatMap((f) =>
      codeLines(f.text).flatMap((l, i) =>
        FATE_MADE.filter(([, re]) => re.test(l) && !FATE_ELSEWHERE.get(f.path)?.test(l)).map(([what]) => `${f.path}:${i + 1}: ${what}: ${l.trim()}`),
      ),
    );
}

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
    expect(crawl.map((f) => f.path).sort()).toEqual([
      'crawl/coordinator.ts', 'crawl/crawler.ts', 'crawl/failed-pulls.ts', 'crawl/held-hosts.ts', 'crawl/run-parts.ts',
      'crawl/run-report.ts', 'crawl/run-summary.ts', 'crawl/run-tally.ts', 'crawl/shared-coordinator.ts', 'crawl/sitemap-reads.ts',
    ]);
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

  it("a link's fate is decided in page/link-fate.ts alone: no other file calls its rules or builds its values", () => {
    expect(sources.some((f) => f.path === FATE_HOME)).toBe(true);
    expect(fateMadeElsewhere(sources)).toEqual([]);
  });

  it('a file that decides a fate on its own is caught, whatever the fate', () => {
    const planted = [
      { path: 'store/pull-writer.ts', text: "const hold = n >= max ? { status: 'trap', note: 'query-variants' } : undefined;\n" },
      { path: 'crawl/crawler.ts', text: "if (robots.kind === 'deny') writer.skip(page, 'robots-denied', robots.reason);\n" },
      { path: 'schedule/page-choice.ts', text: "if (dead) return { status: 'skipped', note: why };\n" },
      { path: 'net/sitemaps.ts', text: "if (siteVerdict(u, rule, []).kind === 'held') l.hold = { status: 'excluded', note };\n" },
      { path: 'net/fetch-page.ts', text: "if (!u) return { kind: 'bad', raw, reason: 'unparseable' };\nconst t = urlTrap(url);\n" },
      { path: 'db/page-owners.ts', text: "const t = skippedExtension(url, skip);\n" },
      { path: 'schedule/dead-ends.ts', text: "if (n.good === 0 && n.bad >= this.limit) return `dead end: ${n.bad} failed pulls`;\n" },
    ];
    expect(fateMadeElsewhere(planted)).toEqual([
      "store/pull-writer.ts:1: a hold or a skip built: const hold = n >= max ? { status: 'trap', note: 'query-variants' } : undefined;",
      "store/pull-writer.ts:1: the query trap named: const hold = n >= max ? { status: 'trap', note: 'query-variants' } : undefined;",
      "crawl/crawler.ts:1: robots.txt's refusal named: if (robots.kind === 'deny') writer.skip(page, 'robots-denied', robots.reason);",
      "schedule/page-choice.ts:1: a hold or a skip built: if (dead) return { status: 'skipped', note: why };",
      "net/sitemaps.ts:1: a rule of the fate called: if (siteVerdict(u, rule, []).kind === 'held') l.hold = { status: 'excluded', note };",
      "net/sitemaps.ts:1: a hold or a skip built: if (siteVerdict(u, rule, []).kind === 'held') l.hold = { status: 'excluded', note };",
      "net/fetch-page.ts:1: a bad link built: if (!u) return { kind: 'bad', raw, reason: 'unparseable' };",
      'net/fetch-page.ts:2: a rule of the fate called: const t = urlTrap(url);',
      'db/page-owners.ts:1: a rule of the fate called: const t = skippedExtension(url, skip);',
      'schedule/dead-ends.ts:1: a dead end named: if (n.good === 0 && n.bad >= this.limit) return `dead end: ${n.bad} failed pulls`;',
    ]);
    // types naming the fates are no decision; the rules' own definitions neither
    const types = [{ path: 'pull/pull-record.ts', text: "export type SkipStatus = 'robots-denied' | 'trap' | 'file' | 'skipped';\nexport function urlTrap(href: string) {}\n  skip(page: P, status: 'skipped' | 'robots-denied', why: string): void;\n" }];
    expect(fateMadeElsewhere(types)).toEqual([]);
  });

  it('the SQL dialect is chosen in src/db only', () => {
    const stray = sources
      .filter((f) => !f.path.startsWith(DIALECT_HOME))
      .flatMap((f) => codeLines(f.text).flatMap((l, i) => (DIALECT.test(l) ? [`${f.path}:${i + 1}: ${l.trim()}`] : [])));
    expect(stray).toEqual([]);
  });
});
