/**
 * A site's internal link graph as plain data (what the map and the link check compute on).
 * Pages are numbered by their database ids; the store fills it (src/store/page-graph-rows.ts).
 */
export interface PageNode {
  id: number;
  url: string;
  /** pages.status: done | not-html | error | redirect | queued | robots-denied | trap | file | skipped | gone (crawl --refresh) */
  status: string;
  /** The last fetch of the page (or of the page that redirected to it); null when never fetched. */
  httpStatus: number | null;
  error: string | null;
  contentType: string | null;
  /** Bytes read (HTML) or the Content-Length (other files); null when unknown. */
  bytes: number | null;
  lastModified: string | null;
  title: string | null;
}

export interface PageEdge {
  src: number;
  dst: number;
  /** The link's anchor text; null when src redirected to dst. */
  anchor: string | null;
}

export interface PageGraph {
  /** The start page's id. */
  start: number;
  nodes: PageNode[];
  edges: PageEdge[];
}

/** Whether the page's content was fetched (the article's "indexed" pages). */
export const isIndexed = (n: PageNode): boolean =>
  n.status === 'done' || n.status === 'not-html' || n.status === 'error' || n.status === 'redirect' || n.status === 'gone';
