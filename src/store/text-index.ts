import type { PageText } from '../page/page-text.js';
import type { Db } from '../db/db.js';

/** Anchor texts kept per page, in characters: a page linked from every page by the same words needs few. */
export const MAX_ANCHORS = 2000;

/**
 * Writes the full-text index while a crawl commits pages (commit.ts; setting index-text): a
 * fetched page's text blocks, and the anchor texts of the links found to each page.
 */
export class TextIndexWriter {
  private s;

  constructor(private db: Db) {
    const pg = db.kind === 'pg';
    // PostgreSQL: page_text is keyed by page_id (SQLite's FTS5 table by rowid), chr/strpos for char/instr.
    const nl = pg ? 'chr(10)' : 'char(10)';
    const id = pg ? 'page_id' : 'rowid';
    const t = pg ? '::text' : ''; // a parameter concatenated with || needs a type there
    this.s = {
      // Positional: it runs for every internal link with text. Appends only text the page does
      // not have yet, up to MAX_ANCHORS; a repeated nav link changes nothing.
      anchor: db.prepare(
        `UPDATE pages SET anchors = CASE WHEN anchors IS NULL THEN ?${t} ELSE anchors || ${nl} || ?${t} END
          WHERE site_id = ? AND dir = ? AND fp = ?
            AND (anchors IS NULL OR (length(anchors) < ${MAX_ANCHORS} AND ${pg ? 'strpos' : 'instr'}(${nl} || anchors || ${nl}, ${nl} || ?${t} || ${nl}) = 0))`,
      ),
      index: db.prepare(
        pg
          ? `INSERT INTO page_text (page_id, title, anchors, headings, body) VALUES (@id, @title, (SELECT anchors FROM pages WHERE id = @id), @headings, @body)
             ON CONFLICT (page_id) DO UPDATE SET title = excluded.title, anchors = excluded.anchors, headings = excluded.headings, body = excluded.body`
          : `INSERT OR REPLACE INTO page_text (rowid, title, anchors, headings, body) VALUES (@id, @title, (SELECT anchors FROM pages WHERE id = @id), @headings, @body)`,
      ),
      // Pages indexed before some of their links were found: their anchors column is behind.
      behind: db.prepare(`SELECT t.${id} AS id, p.anchors FROM page_text t JOIN pages p ON p.id = t.${id} WHERE p.anchors IS ${pg ? 'DISTINCT FROM' : 'NOT'} t.anchors`),
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
