import { xmlText } from '../markup/xml.js';
import type { MapPage, SiteMap } from './site-map.js';

/** The XML namespace-free layout documented by schema/beebot-map.xsd. */
export const MAP_SCHEMA = 'beebot-map.xsd';

/** The map as XML (schema/beebot-map.xsd), one <page> per page, nested as the tree. */
export function mapXml(m: SiteMap, o: { site: string; generated: string }): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<map xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="${MAP_SCHEMA}"` +
      ` site="${xmlText(o.site)}" start="${xmlText(m.start)}" generated="${xmlText(o.generated)}" pages="${m.pages}"` +
      ` indexed="${m.indexed}" registered="${m.registered}" damping="${m.damping}" pagerank="unnormalized">`,
  ];
  writePages(out, [m.root], 1);
  if (m.unreached.length) {
    out.push('  <unreached>');
    writePages(out, m.unreached, 2);
    out.push('  </unreached>');
  }
  out.push('</map>', '');
  return out.join('\n');
}

// Iterative, with explicit close tags: a deep chain of pages must not overflow the stack.
function writePages(out: string[], pages: MapPage[], indent: number): void {
  const stack: (MapPage | string)[] = [...pages].reverse();
  const depthOf = new Map<MapPage, number>(pages.map((p) => [p, indent]));
  while (stack.length) {
    const x = stack.pop()!;
    if (typeof x === 'string') {
      out.push(x);
      continue;
    }
    // Indentation stops growing past 32 levels: a chain of thousands of pages would square the size.
    const pad = '  '.repeat(Math.min(depthOf.get(x)!, 32));
    const attrs = [
      `id="${x.id}"`, `url="${xmlText(x.url)}"`, `kind="${x.kind}"`, `status="${xmlText(x.status)}"`,
      x.httpStatus !== null ? `http="${x.httpStatus}"` : '',
      x.contentType !== null ? `type="${xmlText(x.contentType)}"` : '',
      x.bytes !== null ? `bytes="${x.bytes}"` : '',
      x.lastModified !== null ? `last-modified="${xmlText(x.lastModified)}"` : '',
      `rank="${x.rank.toFixed(6)}"`,
      x.depth >= 0 ? `depth="${x.depth}"` : '',
      x.anchor !== null ? `anchor="${xmlText(x.anchor)}"` : '',
    ].filter(Boolean);
    const inner: string[] = [];
    if (x.title !== null) inner.push(`${pad}  <title>${xmlText(x.title)}</title>`);
    for (const l of x.linked) inner.push(`${pad}  <linked type="${xmlText(l.type)}" count="${l.count}" bytes="${l.bytes}"/>`);
    if (!inner.length && !x.children.length) {
      out.push(`${pad}<page ${attrs.join(' ')}/>`);
      continue;
    }
    out.push(`${pad}<page ${attrs.join(' ')}>`, ...inner);
    stack.push(`${pad}</page>`);
    for (let i = x.children.length - 1; i >= 0; i--) {
      const c = x.children[i]!;
      depthOf.set(c, depthOf.get(x)! + 1);
      stack.push(c);
    }
  }
}
