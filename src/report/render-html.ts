import { CHARTS_SCRIPT } from './charts-script.js';
import { NETWORK_SCRIPT } from './network-script.js';
import { NETWORK_CSS, networkSection, scriptJson, type ReportNetwork } from './network-section.js';
import type { ReportData } from './report-data.js';
import { esc } from '../markup/html-text.js';
import { counted, grouped, otherFetched } from '../markup/counted.js';

// Tableau 10: distinguishable, and still readable printed in grey.
/** The reward modes in words (setting 'reward'). */
function rewardName(mode: string): string {
  return { urls: 'external URLs new to their site', hosts: 'outside hosts new to their site', pairs: 'new (page, external URL) pairs' }[mode] ?? mode;
}

const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export function siteColor(i: number): string {
  return i < PALETTE.length ? PALETTE[i]! : `hsl(${(i * 137.508) % 360} 55% 50%)`;
}


const num = (n: number | null): string => (n === null ? '' : grouped(n));

/** The tile of links not followed, by kind: "3,446 links not followed: 2,258 mailto, 697 javascript, 463 empty". */
function notFollowed(kinds: readonly [string, number][]): string {
  const shown = kinds.slice(0, 4).map(([k, n]) => `${num(n)} ${k}`);
  const rest = kinds.slice(4).reduce((a, [, n]) => a + n, 0);
  return `links not followed${shown.length ? `: ${[...shown, ...(rest ? [`${num(rest)} other`] : [])].join(', ')}` : ''}`;
}

const CSS = `
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; max-width: 1100px; margin: 24px auto; padding: 0 16px; }
  h1 { font-size: 22px; margin-bottom: 2px; } h2 { font-size: 17px; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
  .meta { color: #666; margin-top: 0; } .note { color: #666; font-size: 12.5px; }
  .cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
  .card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
  .card b { display: block; font-size: 20px; }
  table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
  th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
  th { background: #f6f6f6; } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
  td.site { white-space: nowrap; }
  /* Long values without spaces (skip-extensions, URLs, host names) wrap instead of widening the page;
     a table still wider than the window scrolls inside its own box. */
  #settings td, #hosts td { overflow-wrap: anywhere; }
  .wide { overflow-x: auto; max-width: 100%; }
  .sw { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
  svg { width: 100%; height: auto; display: block; font-size: 11px; }
  svg .grid { stroke: #eee; } svg .axis { stroke: #999; } svg .label { fill: #555; font-size: 12px; }
  svg .lane { fill: #f7f7f7; } svg .bar { fill: #4e79a7; } svg text { fill: #333; }
  @media print { h2 { break-after: avoid; } svg, table { break-inside: avoid; } .wide { overflow: visible; } }
`;

/** The network section's content: the laid-out network and the renderer's browser build to inline. */
export interface NetworkPart {
  network: ReportNetwork;
  renderer: string;
}

/** The report as one self-contained HTML page: inline CSS, data and script; nothing is fetched. */
export function renderReport(d: ReportData, net: NetworkPart | null = null): string {
  const sites = d.sites.map((s, i) => ({ ...s, color: siteColor(i) }));
  const chartData = {
    harvest: d.harvest,
    choices: d.choices,
    sites: sites.map((s) => ({ label: s.label, color: s.color, harvest: s.harvest })),
    topHosts: d.topHosts.map((h) => ({ display: h.display, links: h.links, sites: h.sites })),
  };
  const label = new Map(sites.map((s) => [s.id, s.label]));
  const siteRows = sites
    .map(
      (s) => `<tr><td class="n">${s.id}</td><td class="site"><span class="sw" style="background:${s.color}"></span>${esc(s.label)}</td>
        <td>${esc(s.name)}</td><td>${esc(s.group)}</td><td>${esc(s.state)}${s.reason ? `<br><span class="note">${esc(s.reason)}</span>` : ''}</td>
        <td class="n">${num(s.pages_fetched)}</td><td class="n">${num(s.frontier)}</td><td class="n">${s.deepest_level ?? ''}</td>
        <td class="n">${num(s.internal)}</td><td class="n">${num(s.external_urls)}</td><td class="n">${num(s.external_hosts)}</td><td class="n">${num(s.external)}</td><td class="n">${num(s.bad)}</td>
        <td class="n">${s.pages_fetched ? (s.reward_sum / s.pages_fetched).toFixed(2) : ''}</td></tr>`,
    )
    .join('\n');
  const t = d.totals;
  const hostRows = d.topHosts
    .map(
      (h, i) => `<tr><td class="n">${i + 1}</td><td>${esc(h.display)}${h.display !== h.name ? ` <span class="note">${esc(h.name)}</span>` : ''}</td>
        <td>${esc(h.domain)}</td><td class="n">${num(h.sites)}</td><td class="n">${num(h.links)}</td><td class="n">${num(h.pages)}</td>
        <td>${h.targetSiteId !== null ? esc(label.get(h.targetSiteId)) : ''}</td></tr>`,
    )
    .join('\n');
  // A break opportunity after each comma: a list wraps between its items.
  const settingRows = d.settings.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v).replace(/,/g, ',<wbr>')}</td></tr>`).join('\n');
  const period = d.period.first ? `${esc(d.period.first)} – ${esc(d.period.last)}` : 'nothing fetched yet';

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="beebot ${esc(d.version)}">
<title>${esc(d.title)}</title>
<style>${CSS}${net ? NETWORK_CSS : ''}</style>
</head>
<body>
<h1>${esc(d.title)}</h1>
<p class="meta">Database <code>${esc(d.database)}</code> · crawl ${period} · report generated ${esc(d.generatedAt)} by beebot ${esc(d.version)}</p>
<div class="cards">
  <div class="card"><b>${num(d.sites.length)}</b>target sites</div>
  <div class="card"><b>${num(t.pages_fetched)}</b>pages fetched${d.budget !== null ? ` of ${num(d.budget)}` : ''}<br>${esc(counted(t.html_pages, 'HTML page'))}${t.pages_fetched > t.html_pages ? `, ${esc(otherFetched(t.html_pages, t.pages_fetched))}` : ''}</div>
  <div class="card"><b>${num(t.external_urls)}</b>distinct external URLs</div>
  <div class="card"><b>${num(t.external_hosts)}</b>outside hosts</div>
  <div class="card"><b>${num(t.external)}</b>(page, external URL) pairs</div>
  <div class="card"><b>${num(t.internal)}</b>internal links</div>
  <div class="card"><b>${num(t.bad)}</b>${esc(notFollowed(d.badKinds))}</div>
  ${t.harvest_rate !== null ? `<div class="card"><b>${(100 * t.harvest_rate).toFixed(1)} %</b>harvest rate: ${num(t.relevant ?? 0)} pages relevant to the topic</div>` : ''}
</div>

<h2>Sites</h2>
<div class="wide"><table id="sites">
<thead><tr><th class="n">id</th><th>site</th><th>name</th><th>group</th><th>state</th><th class="n">pages fetched</th><th class="n">frontier</th>
<th class="n">deepest level</th><th class="n">internal</th><th class="n">distinct external URLs</th><th class="n">outside hosts</th><th class="n">(page, external URL) pairs</th><th class="n">links not followed</th><th class="n">reward per page</th></tr></thead>
<tbody>
${siteRows}
</tbody>
<tfoot><tr><th></th><th>total</th><th></th><th></th><th></th><th class="n">${num(t.pages_fetched)}</th><th></th><th></th>
<th class="n">${num(t.internal)}</th><th class="n">${num(t.external_urls)}</th><th class="n">${num(t.external_hosts)}</th><th class="n">${num(t.external)}</th><th class="n">${num(t.bad)}</th><th></th></tr></tfoot>
</table></div>
<p class="note">Frontier: unfetched internal links up to the maximum level. Distinct external URLs and outside hosts: per site
(the total row: distinct over all sites); (page, external URL) pairs: one per page and external URL it links. Links not followed:
links to no web page (mailto:, javascript:, tel:, empty, unreadable), listed by kind by <code>beebot links bad</code>. Links deleted with
<code>beebot links delete</code> are not counted. Reward per page: the scheduler's reward per page fetched, as the crawl counted
it (${esc(rewardName(d.reward))}).</p>
${d.barely.map((l) => `<p class="note">${esc(l)}</p>`).join('\n')}

<h2>Harvest curve</h2>
<p class="note">The crawl's reward, ${esc(rewardName(d.reward))}, cumulative against pages fetched, in crawl order: how fast the crawl collected the companion set.</p>
<svg id="chart-harvest-total" class="chart" aria-label="harvest curve, all sites"></svg>
<h2>Harvest curve per site</h2>
<p class="note">Each site against its own pages fetched.</p>
<svg id="chart-harvest-sites" class="chart" aria-label="harvest curve per site"></svg>

<h2>Which site the policy chose</h2>
<p class="note">The crawl's pulls in order, cut into ${num(d.choices.bins)} equal runs; a cell's strength is the site's share of that run's pulls
(policy: ${esc(d.settings.find(([k]) => k === 'policy')?.[1])}).</p>
<svg id="chart-choices" class="chart" aria-label="site chosen over time"></svg>

<h2>Top external hosts</h2>
<p class="note">The companion set: outside hosts ordered by the number of target sites linking to them, then by links.</p>
<svg id="chart-hosts" class="chart" aria-label="top external hosts"></svg>
<div class="wide"><table id="hosts">
<thead><tr><th class="n">#</th><th>host</th><th>registrable domain</th><th class="n">sites</th><th class="n">(page, URL) pairs</th><th class="n">pages</th><th>target site</th></tr></thead>
<tbody>
${hostRows}
</tbody>
</table></div>

${net ? networkSection(net.network) : ''}

<h2>Crawl settings</h2>
<table id="settings">
${settingRows}
</table>
<p class="note">The settings saved in the database. Values given on one crawl's command line only (<code>--max-level</code>, <code>--concurrency</code>,
<code>--delay</code>, <code>--user-agent</code>, <code>--proxy</code>) are not recorded.</p>

<noscript><p class="note">The charts are drawn by the page's script; the tables above do not need it.</p></noscript>
<script type="application/json" id="report-data">${scriptJson(chartData)}</script>
<script>${CHARTS_SCRIPT}</script>
${net ? `<script>${net.renderer.replace(/<\/script/gi, '<\\/script')}</script>\n<script>${NETWORK_SCRIPT}</script>` : ''}
</body>
</html>
`;
}
