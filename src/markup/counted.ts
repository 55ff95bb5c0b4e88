/**
 * A count and its noun, as every message writes one: "1 page", "2 pages", "11,224 rows" (the
 * one plural rule; thousands grouped so that large counts read at a glance).
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${grouped(n)} ${n === 1 ? one : many}`;
}

/** A number as messages write it: thousands grouped ("11,224"). */
export const grouped = (n: number): string => n.toLocaleString('en-US');

/**
 * Pages fetched, in the one vocabulary of every command: "fetched" counts every pull (what the
 * budget counts: HTML pages, non-HTML files, errors, redirects); only HTML pages have text and
 * links, so what counts those says which of the fetched they are. "292 HTML pages of the 300
 * fetched are indexed (8 others: not HTML, errors or redirects)"; `notes` go in the brackets first.
 */
export function htmlOfFetched(html: number, fetched: number, said = '', notes: readonly string[] = []): string {
  const others = otherFetched(html, fetched);
  const all = others === '' ? notes : [...notes, others];
  return `${counted(html, 'HTML page')} of the ${grouped(fetched)} fetched${said === '' ? '' : ` ${said}`}${all.length > 0 ? ` (${all.join('; ')})` : ''}`;
}

/** "8 others: not HTML, errors or redirects": the pulls that gave no HTML page ('' when none). */
export function otherFetched(html: number, fetched: number): string {
  const others = fetched - html;
  return others > 0 ? `${counted(others, 'other')}: not HTML, errors or redirects` : '';
}
