import type { GraphNode, SiteGraph } from './site-graph.js';
import type { Look } from './look.js';
import { rgb } from './look.js';
import { xmlText } from '../markup/xml.js';

const NODE_KEYS: { id: keyof GraphNode; type: 'string' | 'int' }[] = [
  { id: 'label', type: 'string' },
  { id: 'kind', type: 'string' },
  { id: 'group', type: 'string' },
  { id: 'url', type: 'string' },
  { id: 'pages', type: 'int' },
  { id: 'links_out', type: 'int' },
  { id: 'links_in', type: 'int' },
  { id: 'sites_linking', type: 'int' },
];

/**
 * The site graph as GraphML (for networkx, igraph, yEd, Cytoscape; Gephi reads it too), streamed:
 * the same nodes, attributes and weighted directed edges as the GEXF export. No GraphML writer
 * exists for graphology, and the format is small enough to write directly. With `look`, nodes
 * carry x, y, size and r, g, b: the keys Gephi's GraphML import reads as position, size and colour.
 */
export function* graphml(g: SiteGraph, meta: { description: string }, look: ReadonlyMap<string, Look> = new Map()): Generator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n';
  yield `  <desc>${xmlText(meta.description)}</desc>\n`;
  for (const k of NODE_KEYS) yield `  <key id="${k.id}" for="node" attr.name="${k.id}" attr.type="${k.type}"/>\n`;
  if (look.size) for (const [id, type] of VIZ_KEYS) yield `  <key id="${id}" for="node" attr.name="${id}" attr.type="${type}"/>\n`;
  yield '  <key id="weight" for="edge" attr.name="weight" attr.type="int"/>\n';
  yield '  <key id="pages_e" for="edge" attr.name="pages" attr.type="int"/>\n';
  yield '  <graph id="sites" edgedefault="directed">\n';
  for (const n of g.nodes()) {
    const data = NODE_KEYS.map((k) => `<data key="${k.id}">${xmlText(n[k.id])}</data>`).join('');
    yield `    <node id="${xmlText(n.id)}">${data}${viz(look.get(n.id))}</node>\n`;
  }
  for (const e of g.edges()) {
    yield `    <edge id="e${e.id}" source="${xmlText(e.source)}" target="${xmlText(e.target)}">` +
      `<data key="weight">${e.weight}</data><data key="pages_e">${e.pages}</data></edge>\n`;
  }
  yield '  </graph>\n</graphml>\n';
}

const VIZ_KEYS = [['x', 'float'], ['y', 'float'], ['size', 'float'], ['r', 'int'], ['g', 'int'], ['b', 'int']] as const;

function viz(l: Look | undefined): string {
  if (!l) return '';
  const [r, g, b] = rgb(l.color);
  return Object.entries({ x: l.x, y: l.y, size: l.size, r, g, b }).map(([k, v]) => `<data key="${k}">${v}</data>`).join('');
}
