import type { PageText } from '../page/page-text.js';
import type { Db } from '../db/db.js';
import { byStore, newline, onConflictReplace, replaceInto, textPosition, typed } from '../db/dialect.js';

/** The column that holds a page_text row's page id. */
const PAGE_TEXT_ID = { sqlite: 'rowid', pg: 'page_id' };

/** Anchor texts kept per page, in characters: a page linked from every page by the same words needs few. */
export const MAX_ANCHORS = 2000;

/**
 * Writes the full-text index while a crawl commits pages (pull-writer.ts; setting index-text): a
 * fetched page's text blocks, and the anchor texts of the links found to each page.
 */
export class TextIndexWriter {
  private s;

  constructor(private db: Db) {
    // PostgreSQL: page_text is keyed by page_id (SQLite's FTS5 table by its rowid).
    const id = byStore(db, PAGE_TEXT_ID);
    const nl = newline(db);
    const text = typed(db, '?', 'text'); // a parameter concatenated with || needs a type on PostgreSQL
    this.s = {
      // Positional: it runs for every internal link with text. Appends only text the page does
      // not have yet, up to MAX_ANCHORS; a repeated nav link changes nothing.
      anchor: db.prepare(
        `UPDATE pages SET anchors = CASE WHEN anchors IS NULL THEN ${text} ELSE anchors || ${nl} || ${text} END
          WHERE site_id = ? AND dir = ? AND fp = ?
            AND (anchors IS NULL OR (length(anchors) < ${MAX_ANCHORS} AND ${textPosition(db, `${nl} || anchors || ${nl}`, `${nl} || ${text} || ${nl}`)} = 0))`,
      ),
      index: db.prepare(
        `${replaceInto(db)} INTO page_text (${id}, title, anchors, headings, body) VALUES (@id, @title, (SELECT anchors FROM pages WHERE id = @id), @headings, @body)${onConflictReplace(db, id, ['title', 'anchors', 'headings', 'body'])}`,
      ),
      // Pages indexed before some of their links were found: their anchors column is behind.
      behind: db.prepare(`SELECT t.${id} AS id, p.anchors FROM page_text t JOIN pages p ON p.id = t.${id} WHERE p.anchors IS DISTINCT FROM t.anchors`),
      setAnchors: db.prepare(`UPDATE page_text SET anchors = ? WHERE ${id} = ?`),
    };
  }

  /** A link to the page (site, dir, fp) with this text was found. */
  anchor(siteId: number, dir: number, fp: bigint, text: string): void {
    if (text !== '') this.s.anchor.run(text, text, siteId, dir, fp, text);
  }

  /** Index a fetched page's text, with the anchor texts of the links to it found so far. */
  index(pageId: number, t: PageText): void {
    this.s.index.run({ id: pageId, title: t.title, headings: t.headings, body: t.body });
  }

  /**
   * Bring the anchors of already indexed pages up to date (links found after a page was fetched);
   * the crawl calls it when it ends. Returns how many pages changed.
   */
  catchUp(): number {
    const rows = this.s.behind.all() as { id: number; anchors: string | null }[];
    this.db.transaction(() => rows.forEach((r) => this.s.setAnchors.run(r.anchors, r.id)))();
    return rows.length;
  }
}
