import { Command } from 'commander';
import { BeebotError, UsageError } from '../errors.js';
import { hasTextIndex, searchPages } from '../store/search.js';
import { isTty, withReadDb } from './context.js';
import { parseLimit, siteOption } from './filter-options.js';
import { writeRows, type RowOutput } from './row-output.js';

/** Hits shown unless --limit says otherwise. */
const DEFAULT_HITS = 20;

export function searchCommand(): Command {
  return new Command('search')
    .description('full-text search over the crawled pages (crawl with index-text yes): ranked pages with a snippet')
    .argument('<query>', "FTS5 query: words (all must match), \"a phrase\", OR, NOT, prefix*, title:word")
    .option('--site <site>', 'only pages of this site (id, URL or short name)')
    .option('--limit <n>', `at most n pages (default ${DEFAULT_HITS})`)
    .option('--json', 'print a JSON array of objects')
    .action(async (query: string, flags: { site?: string; limit?: string; json?: boolean }, cmd: Command) => {
      const limit = parseLimit(flags.limit) ?? DEFAULT_HITS;
      if (query.trim() === '') throw new UsageError('the query is empty');
      await withReadDb(cmd, async (db) => {
        const siteId = siteOption(db, flags.site);
        if (!hasTextIndex(db)) throw new BeebotError("no page text is indexed: run 'beebot config set index-text yes' before crawling");
        const hits = searchPages(db, query, { siteId, limit });
        const out: RowOutput = { mode: flags.json ? 'json' : isTty() ? 'table' : 'tsv', raw: false };
        await writeRows(['url', 'title', 'score', 'snippet', 'site_id'], hits.map((h) => [h.url, h.title, h.score, h.snippet, h.site_id]), out);
      });
    });
}
