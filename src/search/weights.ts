/**
 * How much a match counts in each text block of a page: bm25's per-column weights, in the
 * column order of the page_text table. A word in the title says most about a page;
 * the words other pages link it with (anchor texts) say what the page is to the rest of the site,
 * nearly as much; headings summarize sections; the body counts once.
 */
export const BLOCK_WEIGHTS = { title: 10, anchors: 5, headings: 3, body: 1 } as const;

export type Block = keyof typeof BLOCK_WEIGHTS;
/** The page_text columns, in order. */
export const BLOCKS: readonly Block[] = ['title', 'anchors', 'headings', 'body'];

/** The SQL rank expression: FTS5's bm25 is negative, lower is better; we report its negation. */
export const BM25 = `bm25(page_text, ${BLOCKS.map((b) => BLOCK_WEIGHTS[b].toFixed(1)).join(', ')})`;
