/**
 * Text as a terminal shows it safely: control characters as '?'. A site's text (a page's anchor,
 * a sitemap's root element, a name typed with an escape sequence) could otherwise rewrite the
 * user's screen or break a table's row. Bidi controls (embeddings, overrides, isolates, marks)
 * too: a terminal that reorders text would let a page's U+202E reverse the rest of the row.
 */
export const screen = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');
