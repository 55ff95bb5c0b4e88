import { UsageError } from '../errors.js';
import { ftsToTsquery } from '../search/tsquery.js';
import { BLOCKS, BLOCK_WEIGHTS, BM25 } from '../search/weights.js';
import type { Db } from '../db/db.js';
import { byStore } from '../db/dialect.js';
import { htmlPageCount, pullCount } from './status.js';

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
  return byStore(db, { sqlite: searchFts5, pg: searchPg })(db, query, o);
}

/** SQLite's FTS5: bm25 with the block weights, and its snippet of the best block. */
function searchFts5(db: Db, query: string, o: SearchOptions): SearchHit[] {
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

// ts_rank's weights are listed {D, C, B, A}: body, headings, anchors, title, scaled to at most 1.
const PG_WEIGHTS = `'{${[...BLOCKS].reverse().map((b) => BLOCK_WEIGHTS[b] / BLOCK_WEIGHTS.title).join(', ')}}'`;

/**
 * PostgreSQL's text search: the same pages match (see ftsToTsquery), but it ranks with ts_rank
 * (term frequency by block weight, not bm25), so scores differ from SQLite's and equal scores
 * can order differently; the snippet is ts_headline over the page's blocks, not FTS5's best
 * stretch of the best block.
 */
function searchPg(db: Db, query: string, o: SearchOptions): SearchHit[] {
  const tsquery = ftsToTsquery(query);
  return db
    .prepare(
      `SELECT p.id AS page_id, p.site_id, p.url, t.title, ts_rank(${PG_WEIGHTS}, t.tsv, q) AS score,
              ts_headline('simple', concat_ws(' ', t.title, t.anchors, t.headings, t.body), q,
                          'StartSel=[, StopSel=], MaxWords=16, MinWords=8, MaxFragments=1, FragmentDelimiter=…') AS snippet
         FROM page_text t JOIN pages p ON p.id = t.page_id, to_tsquery('simple', @query) q
        WHERE t.tsv @@ q AND (@site::bigint IS NULL OR p.site_id = @site::bigint)
        ORDER BY score DESC, p.id LIMIT @limit::bigint`,
    )
    .all({ query: tsquery, site: o.siteId, limit: o.limit }) as SearchHit[];
}

/** Whether any page was indexed (the setting index-text was on during a crawl). */
export function hasTextIndex(db: Db): boolean {
  return db.prepare('SELECT EXISTS (SELECT 1 FROM page_text)').pluck().get() === 1;
}

/** What search covers: the HTML pages in the text index, of the HTML pages, of all pulls (what status counts as fetched). */
export function indexCoverage(db: Db): { indexed: number; html: number; fetched: number } {
  const indexed = Number(db.prepare('SELECT count(*) FROM page_text').pluck().get());
  return { indexed, html: htmlPageCount(db), fetched: pullCount(db) };
}
