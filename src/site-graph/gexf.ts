import type { GraphNode, SiteGraph } from './site-graph.js';
import type { Look } from './look.js';
import { rgb } from './look.js';
import { xmlText } from '../markup/xml.js';

const NODE_ATTRIBUTES: { id: keyof GraphNode; title: string; type: 'string' | 'integer' }[] = [
  { id: 'kind', title: 'kind', type: 'string' },
  { id: 'group', title: 'group', type: 'string' },
  { id: 'url', title: 'url', type: 'string' },
  { id: 'pages', title: 'pages crawled', type: 'integer' },
  { id: 'links_out', title: 'external links out', type: 'integer' },
  { id: 'links_in', title: 'links in', type: 'integer' },
  { id: 'sites_linking', title: 'target sites linking', type: 'integer' },
];

/**
 * The site graph as GEXF 1.2 (the version every Gephi since 0.8 opens), written as it is read:
 * declared node attributes (kind, group, pages crawled, ...), directed edges whose `weight` is the
 * link count, plus the number of linking pages as an edge attribute. With `look` (the report's
 * layout), nodes carry viz position, size and colour, so Gephi opens the report's picture.
 */
export function* gexf(
  g: SiteGraph, meta: { creator: string; description: string; date: Date }, look: ReadonlyMap<string, Look> = new Map(),
): Generator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield '<gexf xmlns="http://www.gexf.net/1.2draft" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    'xmlns:viz="http://www.gexf.net/1.2draft/viz" xsi:schemaLocation="http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd" version="1.2">\n';
  yield `  <meta lastmodifieddate="${meta.date.toISOString().slice(0, 10)}">\n`;
  yield `    <creator>${xmlText(meta.creator)}</creator>\n    <description>${xmlText(meta.description)}</description>\n  </meta>\n`;
  yield '  <graph mode="static" defaultedgetype="directed">\n';
  yield '    <attributes class="node" mode="static">\n';
  for (const a of NODE_ATTRIBUTES) yield `      <attribute id="${a.id}" title="${xmlText(a.title)}" type="${a.type}"/>\n`;
  yield '    </attributes>\n';
  yield '    <attributes class="edge" mode="static">\n      <attribute id="pages" title="linking pages" type="integer"/>\n    </attributes>\n';
  yield '    <nodes>\n';
  for (const n of g.nodes()) {
    const values = NODE_ATTRIBUTES.map((a) => `<attvalue for="${a.id}" value="${xmlText(n[a.id])}"/>`).join('');
    yield `      <node id="${xmlText(n.id)}" label="${xmlText(n.label)}"><attvalues>${values}</attvalues>${viz(look.get(n.id))}</node>\n`;
  }
  yield '    </nodes>\n    <edges>\n';
  for (const e of g.edges()) {
    yield `      <edge id="${e.id}" source="${xmlText(e.source)}" target="${xmlText(e.target)}" weight="${e.weight}">` +
      `<attvalues><attvalue for="pages" value="${e.pages}"/></attvalues></edge>\n`;
  }
  yield '    </edges>\n  </graph>\n</gexf>\n';
}

function viz(l: Look | undefined): string {
  if (!l) return '';
  const [r, g, b] = rgb(l.color);
  return `<viz:color r="${r}" g="${g}" b="${b}"/><viz:position x="${l.x}" y="${l.y}" z="0"/><viz:size value="${l.size}"/>`;
}
