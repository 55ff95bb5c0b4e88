/**
 * Text as a terminal shows it safely: control characters as '?'. A site's text (a page's anchor,
 * a sitemap's root element, a name typed with an escape sequence) could otherwise rewrite the
 * user's screen or break a table's row.
 */
export const screen = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
