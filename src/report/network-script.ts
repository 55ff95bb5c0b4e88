/**
 * The report's network code, run by the browser: it reads the laid-out network embedded in the
 * page and draws it with sigma (WebGL) on a graphology graph, both inlined from their npm
 * packages' browser builds (renderer-bundle.ts). Plain ES2017 in a string, as charts-script.ts,
 * because the project compiles without DOM types; test/report/network-report.test.ts drives it in
 * Chromium. Hooks for that test and for curious users: window.beebotNetwork (graph, renderer,
 * shown(), find(text)); <div id="network"> gets data-drawn, data-ready-ms, data-shown-nodes,
 * data-shown-edges, data-hovered, data-found, and data-error on a failure.
 */
export const NETWORK_SCRIPT = String.raw`
(function () {
  'use strict';
  var root = document.getElementById('network');
  var dataEl = document.getElementById('network-data');
  if (!root || !dataEl) return;
  try {
    var data = JSON.parse(dataEl.textContent);
    var SigmaClass = window.Sigma && (window.Sigma.Sigma || window.Sigma);
    var g = new graphology.Graph({ type: 'directed', multi: false, allowSelfLoops: false });
    var ids = data.nodes.map(function (n) {
      g.addNode(n[0], { label: n[1], site: n[2] === 1, group: n[3], sites: n[4], x: n[5], y: n[6], size: n[7], color: n[8], labelled: n[9] === 1, urlsIn: 0, urlsOut: 0 });
      return n[0];
    });
    data.edges.forEach(function (e) {
      var s = ids[e[0]], t = ids[e[1]], siteToSite = data.nodes[e[1]][2] === 1;
      g.addEdge(s, t, { urls: e[2], size: 0.4 + 0.6 * Math.log(1 + e[2]), color: siteToSite ? '#666666' : '#d4d0cc', type: siteToSite ? 'arrow' : 'line' });
      g.updateNodeAttribute(s, 'urlsOut', function (v) { return v + e[2]; });
      g.updateNodeAttribute(t, 'urlsIn', function (v) { return v + e[2]; });
    });
    var k = data.k, hovered = null, found = null;
    var kInput = document.getElementById('network-k'), search = document.getElementById('network-search');
    var info = document.getElementById('network-info'), count = document.getElementById('network-count');
    var visible = function (n, a) { return a.site || a.sites >= k; };
    var focus = function () { return hovered || found; };
    var near = null; // the focused node and its visible neighbours
    function setFocus() {
      var f = focus();
      near = null;
      if (f) {
        near = {};
        near[f] = true;
        g.forEachNeighbor(f, function (m, a) { if (visible(m, a)) near[m] = true; });
      }
      root.setAttribute('data-hovered', hovered || '');
      root.setAttribute('data-found', found || '');
      describe(f);
      renderer.refresh();
    }
    function describe(f) {
      if (!f) { info.textContent = 'Hover a node.'; return; }
      var a = g.getNodeAttributes(f), shownNeighbours = Object.keys(near).length - 1;
      var parts = [a.label + (a.label !== f ? ' (' + f + ')' : '')];
      if (a.site) parts.push('site' + (data.groups[a.group] ? ', group ' + data.groups[a.group] : ''), 'links ' + g.outDegree(f) + ' nodes (' + a.urlsOut + ' distinct URLs)');
      parts.push('linked by ' + a.sites + ' site' + (a.sites === 1 ? '' : 's') + (a.urlsIn ? ' (' + a.urlsIn + ' distinct URLs)' : ''));
      parts.push(shownNeighbours + ' neighbour' + (shownNeighbours === 1 ? '' : 's') + ' shown');
      info.textContent = parts.join(' · ');
    }
    var renderer = new SigmaClass(g, document.getElementById('network-canvas'), {
      allowInvalidContainer: true,
      zIndex: true,
      defaultEdgeType: 'line',
      labelRenderedSizeThreshold: 14,
      labelFont: 'system-ui, sans-serif',
      nodeReducer: function (n, a) {
        var r = { x: a.x, y: a.y, size: a.size, color: a.color, label: a.label, zIndex: a.site ? 2 : 1, forceLabel: a.labelled };
        if (!visible(n, a)) r.hidden = true;
        else if (near) {
          if (near[n]) { r.forceLabel = true; r.zIndex = 3; if (n === focus()) r.highlighted = true; }
          else { r.color = '#eeeeee'; r.label = ''; r.forceLabel = false; r.zIndex = 0; }
        }
        return r;
      },
      edgeReducer: function (e, a) {
        var s = g.source(e), t = g.target(e), r = { size: a.size, color: a.color, type: a.type };
        if (!visible(s, g.getNodeAttributes(s)) || !visible(t, g.getNodeAttributes(t))) r.hidden = true;
        else if (near) {
          var f = focus();
          if (s !== f && t !== f) r.hidden = true;
          else { r.color = '#333333'; r.zIndex = 1; }
        }
        return r;
      },
    });
    function counts() {
      var nodes = 0, edges = 0;
      g.forEachNode(function (n, a) { if (visible(n, a)) nodes++; });
      g.forEachEdge(function (e, a, s, t, sa, ta) { if (visible(s, sa) && visible(t, ta)) edges++; });
      count.textContent = nodes + ' nodes, ' + edges + ' edges shown';
      root.setAttribute('data-shown-nodes', String(nodes));
      root.setAttribute('data-shown-edges', String(edges));
    }
    renderer.on('enterNode', function (ev) { hovered = ev.node; setFocus(); });
    renderer.on('leaveNode', function () { hovered = null; setFocus(); });
    kInput.addEventListener('input', function () {
      var v = Math.floor(Number(kInput.value));
      if (!(v >= 1)) return;
      k = v;
      counts();
      if (found && !visible(found, g.getNodeAttributes(found))) found = null;
      setFocus();
    });
    function find(text) {
      var q = String(text).trim().toLowerCase(), best = null;
      if (q) g.forEachNode(function (n, a) {
        if (best && best.exact) return;
        var l = String(a.label).toLowerCase(), id = n.toLowerCase();
        if (l === q || id === q) best = { node: n, exact: true };
        else if (!best && (l.indexOf(q) >= 0 || id.indexOf(q) >= 0) && visible(n, a)) best = { node: n, exact: false };
      });
      found = best ? best.node : null;
      if (found && !visible(found, g.getNodeAttributes(found))) { k = 1; kInput.value = '1'; counts(); }
      setFocus();
      if (found) {
        var d = renderer.getNodeDisplayData(found);
        if (d) renderer.getCamera().animate({ x: d.x, y: d.y, ratio: 0.35 }, { duration: 300 });
      }
      return found;
    }
    search.addEventListener('change', function () { find(search.value); });
    search.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') find(search.value); });
    counts();
    window.beebotNetwork = {
      graph: g,
      renderer: renderer,
      find: find,
      /** What the renderer draws now: nodes with their colour, highlight and label; edges shown. */
      shown: function () {
        var nodes = [], edges = [];
        g.forEachNode(function (n) {
          var d = renderer.getNodeDisplayData(n);
          if (d && !d.hidden) nodes.push({ id: n, label: d.label, color: d.color, highlighted: !!d.highlighted, forceLabel: !!d.forceLabel });
        });
        g.forEachEdge(function (e, a, s, t) {
          var d = renderer.getEdgeDisplayData(e);
          if (d && !d.hidden) edges.push([s, t]);
        });
        return { nodes: nodes, edges: edges, camera: renderer.getCamera().getState() };
      },
    };
    root.setAttribute('data-drawn', '1');
    root.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  } catch (err) {
    root.setAttribute('data-error', String(err && err.stack || err));
    var c = document.getElementById('network-canvas');
    if (c) c.textContent = 'The network could not be drawn here: ' + String(err && err.message || err);
  }
})();
`;
