import { esc } from '../markup/html-text.js';
import { grouped } from '../markup/counted.js';

/** The laid-out network as the report draws it (site-graph/network.ts makes it). */
export interface ReportNetwork {
  level: 'host' | 'domain';
  nodes: { id: string; label: string; site: boolean; group: string; sites: number; x: number; y: number; size: number; color: string }[];
  edges: { source: string; target: string; urls: number }[];
  groups: { name: string; color: string }[];
  k: number;
  omitted: number;
  /** sites that link or are linked by another site, and the distinct URLs row → column */
  matrix: { sites: string[]; counts: number[][] };
  colinks: { site_a: string; site_b: string; shared: number }[];
}

/** Co-link pairs listed in the page; `export --kind colinks` has them all. */
export const COLINKS_SHOWN = 30;
/** Nodes always labelled: the largest. Others get a label when zoomed in to a readable size. */
export const LABELLED = 20;

/** JSON inside <script>: `<` escaped so no value (a site name, a host) can close the element. */
export const scriptJson = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * The data the page's script reads, compact (5,000 nodes stay a few hundred KB): nodes as
 * [id, label, site 0/1, group index or -1, linking sites, x, y, size, colour], edges as
 * [source index, target index, distinct URLs].
 */
export function networkJson(n: ReportNetwork): unknown {
  const index = new Map(n.nodes.map((x, i) => [x.id, i]));
  const group = new Map(n.groups.map((g, i) => [g.name, i]));
  const labelled = new Set(
    n.nodes
      .map((x, i) => [i, x.size] as const)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, LABELLED)
      .map(([i]) => i),
  );
  return {
    k: n.k,
    groups: n.groups.map((g) => g.name),
    sites: n.nodes.filter((x) => x.site).length,
    nodes: n.nodes.map((x, i) => [x.id, x.label, x.site ? 1 : 0, x.site ? group.get(x.group)! : -1, x.sites, x.x, x.y, x.size, x.color, labelled.has(i) ? 1 : 0]),
    edges: n.edges.map((e) => [index.get(e.source)!, index.get(e.target)!, e.urls]),
  };
}

const num = grouped;

/** The network section: the picture's frame and controls, its legend, and the two tables beside it. */
export function networkSection(n: ReportNetwork): string {
  const label = new Map(n.nodes.map((x) => [x.id, x.label]));
  const siteCount = n.nodes.filter((x) => x.site).length;
  const what = n.level === 'host' ? 'outside hosts' : 'registrable domains';
  const legend = [
    ...n.groups.map((g) => `<span><span class="sw" style="background:${g.color}"></span>${esc(g.name || 'no group')}</span>`),
    `<span><span class="sw" style="background:#b8b4b0"></span>${what}</span>`,
  ].join(' ');
  const m = n.matrix;
  const matrix = m.sites.length
    ? `<div class="wide"><table id="interlinks"><thead><tr><th>links → </th>${m.sites.map((s) => `<th class="n">${esc(label.get(s) ?? s)}</th>`).join('')}</tr></thead>
<tbody>
${m.sites.map((s, i) => `<tr><th>${esc(label.get(s) ?? s)}</th>${m.counts[i]!.map((c, j) => `<td class="n" data-source="${esc(s)}" data-target="${esc(m.sites[j]!)}">${i === j ? '' : c ? num(c) : '·'}</td>`).join('')}</tr>`).join('\n')}
</tbody></table></div>`
    : '<p class="note" id="interlinks">No site of the crawl links another.</p>';
  const colinks = n.colinks.length
    ? `<table id="colinks"><thead><tr><th>site</th><th>site</th><th class="n">${what} both link to</th></tr></thead>
<tbody>
${n.colinks.slice(0, COLINKS_SHOWN).map((c) => `<tr><td data-site="${esc(c.site_a)}">${esc(label.get(c.site_a) ?? c.site_a)}</td><td data-site="${esc(c.site_b)}">${esc(label.get(c.site_b) ?? c.site_b)}</td><td class="n">${num(c.shared)}</td></tr>`).join('\n')}
</tbody></table>${n.colinks.length > COLINKS_SHOWN ? `<p class="note">The ${COLINKS_SHOWN} pairs sharing most, of ${num(n.colinks.length)}: <code>beebot export colinks.csv --kind colinks</code> lists them all.</p>` : ''}`
    : `<p class="note" id="colinks">No two sites link to the same ${n.level === 'host' ? 'outside host' : 'registrable domain'}.</p>`;
  return `
<h2>Network</h2>
<p class="note">Who links to whom: the ${num(siteCount)} sites of the crawl and the ${what} linked by at least <i>k</i> of them
(the co-link rule), laid out by ForceAtlas2 when the report was written (the same database gives the same picture; <code>beebot export sites.gexf</code>
opens it in Gephi as it is). An edge is a site linking a node, thicker for more distinct URLs; sites are coloured by group and a node's size grows
with the number of sites linking it. Drag to pan, scroll to zoom, hover a node for its name, counts and neighbours.${n.omitted ? ` The ${num(n.omitted)} least linked ${what} are left out of the picture.` : ''}</p>
<div id="network" class="network">
  <div class="network-bar">
    <label>find <input id="network-search" type="search" list="network-names" placeholder="a site or host" autocomplete="off"></label>
    <label>show ${what} linked by at least <input id="network-k" type="number" min="1" max="${Math.max(1, siteCount)}" value="${n.k}"> sites</label>
    <span id="network-count" class="note"></span>
  </div>
  <div id="network-canvas"></div>
  <div id="network-info" class="note">Hover a node.</div>
  <p class="legend">${legend}</p>
</div>
<datalist id="network-names">${n.nodes.filter((x) => x.site).map((x) => `<option value="${esc(x.label)}">`).join('')}</datalist>
<div class="network-tables">
<div><h3>Interlinks</h3><p class="note">Distinct URLs of the column's site linked from the row's site (<code>beebot export interlinks.csv --kind interlinks</code>).</p>
${matrix}</div>
<div><h3>Co-links</h3><p class="note">Pairs of sites and the ${what} both link to (<code>beebot export colinks.csv --kind colinks</code>).</p>
${colinks}</div>
</div>
<script type="application/json" id="network-data">${scriptJson(networkJson(n))}</script>`;
}

export const NETWORK_CSS = `
  .network-bar { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; margin: 8px 0; }
  .network-bar input[type=number] { width: 4em; }
  #network-canvas { height: 600px; border: 1px solid #ddd; border-radius: 6px; background: #fff; position: relative; }
  #network-info { min-height: 2.9em; margin: 6px 0; }
  .legend span { margin-right: 14px; white-space: nowrap; }
  .network-tables { display: flex; flex-wrap: wrap; gap: 32px; } .network-tables > div { min-width: 0; max-width: 100%; }
  h3 { font-size: 15px; margin-bottom: 2px; }
  @media print { #network-canvas { break-inside: avoid; } }
`;
