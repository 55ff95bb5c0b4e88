import { Command } from 'commander';
import { BeebotError, UsageError } from '../errors.js';
import { counted, grouped, htmlOfFetched } from '../markup/counted.js';
import { hasTextIndex, indexCoverage, searchPages } from '../store/search.js';
import { isTty, withReadDb } from './context.js';
import { parseLimit, siteOption } from './filter-options.js';
import { writeRows, type RowOutput } from './row-output.js';

/** Hits shown unless --limit says otherwise. */
const DEFAULT_HITS = 20;

export function searchCommand(): Command {
  return new Command('search')
    .description(
      'full-text search over the crawled pages (crawl with index-text yes): ranked pages with a snippet; ' +
        'says on stderr how many pages the index holds; exit 1 when no page matches (as grep)',
    )
    .argument('<query>', "FTS5 query: words (all must match), \"a phrase\", OR, NOT, prefix*, title:word")
    .option('--site <site>', 'only pages of this site (id, URL, host or short name)')
    .option('--limit <n>', `at most n pages (default ${DEFAULT_HITS})`)
    .option('--json', 'print a JSON array of objects')
    .action(async (query: string, flags: { site?: string; limit?: string; json?: boolean }, cmd: Command) => {
      const limit = parseLimit(flags.limit) ?? DEFAULT_HITS;
      if (query.trim() === '') throw new UsageError('the query is empty');
      await withReadDb(cmd, async (db) => {
        const siteId = siteOption(db, flags.site);
        if (!hasTextIndex(db)) throw new BeebotError("no page text is indexed: run 'beebot config set index-text yes' before crawling");
        const hits = searchPages(db, query, { siteId, limit });
        const { indexed, html, fetched } = indexCoverage(db);
        // The pages fetched while index-text was no are not searched: say so, with every answer.
        const coverage = indexed >= html
          ? `all ${htmlOfFetched(html, fetched, 'are indexed')}`
          : `${grouped(indexed)} of the ${htmlOfFetched(html, fetched, 'are indexed', [`${counted(html - indexed, 'HTML page')} fetched with index-text no`])}`;
        if (hits.length === 0) {
          // As grep: nothing found is exit 1, and no table, only the line that says so.
          if (flags.json) process.stdout.write('[]\n');
          process.stderr.write(`no page matches ${JSON.stringify(query)}; ${coverage}\n`);
          process.exitCode = 1;
          return;
        }
        const out: RowOutput = { mode: flags.json ? 'json' : isTty() ? 'table' : 'tsv', raw: false };
        await writeRows(['url', 'title', 'score', 'snippet', 'site_id'], hits.map((h) => [h.url, h.title, h.score, h.snippet, h.site_id]), out);
        process.stderr.write(`${counted(hits.length, 'page')} shown; ${coverage}\n`);
      });
    });
}
