import { UsageError } from '../errors.js';
import { BM25 } from '../search/weights.js';
import type { Db } from './db.js';

export interface SearchHit {
  page_id: number;
  site_id: number;
  url: string;
  title: string;
  /** −bm25 with the block weights (search/weights.ts): higher is better, comparable within one query */
  score: number;
  /** the best-matching stretch of the best-matching block, matches in [brackets] */
  snippet: string;
}

export interface SearchOptions {
  siteId: number | null;
  limit: number | null;
}

/** Pages matching an FTS5 query, best first. A query FTS5 cannot read is a usage error. */
export function searchPages(db: Db, query: string, o: SearchOptions): SearchHit[] {
  try {
    return db
      .prepare(
        `SELECT p.id AS page_id, p.site_id, p.url, t.title, -${BM25} AS score,
                snippet(page_text, -1, '[', ']', '…', 16) AS snippet
           FROM page_text t JOIN pages p ON p.id = t.rowid
          WHERE page_text MATCH @query AND (@site IS NULL OR p.site_id = @site)
          ORDER BY ${BM25}, p.id LIMIT @limit`,
      )
      .all({ query, site: o.siteId, limit: o.limit ?? -1 }) as SearchHit[];
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_ERROR') throw new UsageError(`cannot read the query '${query}': ${(err as Error).message}`);
    throw err;
  }
}

/** Whether any page was indexed (the setting index-text was on during a crawl). */
export function hasTextIndex(db: Db): boolean {
  return db.prepare('SELECT EXISTS (SELECT 1 FROM page_text)').pluck().get() === 1;
}
