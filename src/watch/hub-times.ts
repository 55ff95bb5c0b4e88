import { Parser } from 'htmlparser2';
import { parseIsoDate, plausibleDate } from './published.js';

/**
 * The publication times a hub page shows next to its links: a news list usually puts
 * a `<time datetime="…">` in the same list item as the link. For each link inside an item
 * (li, article, tr, dd), the item's first time, if it has one. Links outside such an item, or in
 * an item without a time, get none. Pure: HTML and the page's URL in, absolute URL → epoch ms out.
 */

const ITEMS = new Set(['li', 'article', 'tr', 'dd']);

export function shownTimes(html: string, pageUrl: string, now: number): Map<string, number> {
  const out = new Map<string, number>();
  // The open items, innermost last: each with its time and the links seen in it so far.
  const stack: { tag: string; time: number | null; links: string[] }[] = [];
  const close = (item: { time: number | null; links: string[] }) => {
    if (item.time === null) return;
    for (const l of item.links) if (!out.has(l)) out.set(l, item.time);
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (ITEMS.has(name)) stack.push({ tag: name, time: null, links: [] });
        const top = stack.at(-1);
        if (!top) return;
        if (name === 'time' && top.time === null && attrs.datetime) {
          const t = parseIsoDate(attrs.datetime);
          if (t !== null && plausibleDate(t, now)) top.time = t;
        } else if (name === 'a' && attrs.href) {
          const u = URL.parse(attrs.href, pageUrl);
          if (u && (u.protocol === 'http:' || u.protocol === 'https:')) {
            u.hash = '';
            top.links.push(u.href);
          }
        }
      },
      onclosetag(name) {
        if (!ITEMS.has(name)) return;
        // Close up to the matching item (htmlparser2 closes implied tags itself, but be safe).
        for (let i = stack.length - 1; i >= 0; i--) {
          if (stack[i]!.tag !== name) continue;
          for (const item of stack.splice(i).reverse()) close(item);
          break;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  for (const item of stack.reverse()) close(item);
  return out;
}

/** The same URL as shownTimes keys it, for lookups: absolute, without fragment. */
export function timeKey(url: string): string {
  const u = URL.parse(url);
  if (!u) return url;
  u.hash = '';
  return u.href;
}
