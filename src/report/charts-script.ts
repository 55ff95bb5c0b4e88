/**
 * The report's chart code, run by the browser when the page opens: it reads the JSON embedded in
 * the page and draws inline SVG (no library, no network). Plain ES2017 in a string because the
 * project compiles for Node without DOM types; the Chromium test in test/report/report.test.ts is what
 * checks it. When done, <body data-charts-drawn="N"> tells how many charts were drawn, and each
 * <svg> carries data-marks (lines, cells or bars drawn) and data-rendered (its laid-out size);
 * a failure is recorded in <body data-chart-error>.
 */
export const CHARTS_SCRIPT = String.raw`
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('report-data').textContent);

  function el(name, attrs, parent, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(n) {
    if (n >= 1e6) return (n / 1e6).toFixed(n >= 1e7 ? 0 : 1) + 'M';
    if (n >= 1e4) return (n / 1e3).toFixed(0) + 'k';
    return String(Math.round(n * 100) / 100);
  }
  function ticks(max, count) {
    if (max <= 0) return [0];
    var raw = max / count, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;
    var step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag, out = [];
    for (var v = 0; v <= max + step * 1e-9; v += step) out.push(v);
    return out;
  }
  function frame(svg, w, h) {
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    svg.setAttribute('role', 'img');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
  }
  function finish(svg, marks) {
    svg.setAttribute('data-marks', String(marks));
    var r = svg.getBoundingClientRect();
    svg.setAttribute('data-rendered', Math.round(r.width) + 'x' + Math.round(r.height));
    return marks > 0 ? 1 : 0;
  }

  // Lines of [x, y] points on linear axes, a legend on the right.
  function lineChart(svg, series, xLabel, yLabel) {
    // Tall enough for a legend line per series: every site stays findable.
    var W = 820, L = 64, R = 170, T = 12, B = 44, H = Math.max(320, T + 8 + series.length * 16 + B), pw = W - L - R, ph = H - T - B;
    frame(svg, W, H);
    var xmax = 1, ymax = 1;
    series.forEach(function (s) {
      xmax = Math.max(xmax, s.x[s.x.length - 1] || 0);
      ymax = Math.max(ymax, s.y[s.y.length - 1] || 0);
    });
    var xt = ticks(xmax, 6), yt = ticks(ymax, 5);
    xmax = Math.max(xmax, xt[xt.length - 1]); ymax = Math.max(ymax, yt[yt.length - 1]);
    var X = function (v) { return L + (v / xmax) * pw; }, Y = function (v) { return T + ph - (v / ymax) * ph; };
    var axes = el('g', { class: 'axes' }, svg);
    yt.forEach(function (v) {
      el('line', { x1: L, x2: L + pw, y1: Y(v), y2: Y(v), class: 'grid' }, axes);
      el('text', { x: L - 6, y: Y(v) + 4, 'text-anchor': 'end' }, axes, fmt(v));
    });
    xt.forEach(function (v) { el('text', { x: X(v), y: T + ph + 16, 'text-anchor': 'middle' }, axes, fmt(v)); });
    el('line', { x1: L, x2: L + pw, y1: T + ph, y2: T + ph, class: 'axis' }, axes);
    el('line', { x1: L, x2: L, y1: T, y2: T + ph, class: 'axis' }, axes);
    el('text', { x: L + pw / 2, y: H - 6, 'text-anchor': 'middle', class: 'label' }, axes, xLabel);
    el('text', { x: 14, y: T + ph / 2, 'text-anchor': 'middle', class: 'label', transform: 'rotate(-90 14 ' + (T + ph / 2) + ')' }, axes, yLabel);
    var marks = 0;
    series.forEach(function (s, i) {
      var ly = T + 8 + i * 16;
      el('rect', { x: L + pw + 14, y: ly - 8, width: 10, height: 10, fill: s.color }, svg);
      el('text', { x: L + pw + 30, y: ly + 1, class: 'legend' }, svg, s.name);
      if (s.x.length < 2) return;
      var pts = s.x.map(function (x, j) { return X(x).toFixed(1) + ',' + Y(s.y[j]).toFixed(1); }).join(' ');
      var line = el('polyline', { points: pts, fill: 'none', stroke: s.color, 'stroke-width': 2, class: 'series' }, svg);
      el('title', {}, line, s.name + ': ' + fmt(s.y[s.y.length - 1]) + ' (cumulative reward) after ' + fmt(s.x[s.x.length - 1]) + ' pages');
      marks++;
    });
    return finish(svg, marks);
  }

  // One row per site, one column per run of pulls; a cell's opacity is the site's share of the run.
  function choiceChart(svg, sites, c) {
    var W = 820, L = 110, R = 10, T = 8, rowH = 18, B = 40, pw = W - L - R;
    var H = T + sites.length * rowH + B;
    frame(svg, W, H);
    var per = [];
    for (var b = 0; b < c.bins; b++) {
      var n = 0;
      for (var r = 0; r < c.counts.length; r++) n += c.counts[r][b];
      per.push(n);
    }
    var cw = pw / c.bins, marks = 0, first = 0;
    sites.forEach(function (s, r) {
      var y = T + r * rowH;
      el('text', { x: L - 6, y: y + rowH / 2 + 4, 'text-anchor': 'end' }, svg, s.label);
      el('rect', { x: L, y: y + 1, width: pw, height: rowH - 2, class: 'lane' }, svg);
    });
    for (var b2 = 0; b2 < c.bins; b2++) {
      var last = first + per[b2];
      sites.forEach(function (s, r) {
        var k = c.counts[r][b2];
        if (!k) return;
        var cell = el('rect', { x: (L + b2 * cw).toFixed(2), y: T + r * rowH + 1, width: Math.max(cw, 1).toFixed(2), height: rowH - 2, fill: s.color, 'fill-opacity': (0.15 + 0.85 * k / per[b2]).toFixed(3) }, svg);
        el('title', {}, cell, s.label + ': ' + k + ' of pulls ' + (first + 1) + '–' + last);
        marks++;
      });
      first = last;
    }
    var yb = T + sites.length * rowH;
    el('line', { x1: L, x2: L + pw, y1: yb, y2: yb, class: 'axis' }, svg);
    ticks(c.pulls, 6).forEach(function (v) {
      el('text', { x: L + (v / Math.max(1, c.pulls)) * pw, y: yb + 16, 'text-anchor': 'middle' }, svg, fmt(v));
    });
    el('text', { x: L + pw / 2, y: H - 6, 'text-anchor': 'middle', class: 'label' }, svg, 'pages fetched (crawl order)');
    return finish(svg, marks);
  }

  // Horizontal bars: external links per host, the number of linking sites written beside.
  function barChart(svg, hosts) {
    var W = 820, L = 230, R = 150, T = 6, rowH = 20, pw = W - L - R, H = T + hosts.length * rowH + 8;
    frame(svg, W, Math.max(H, 30));
    var max = 1;
    hosts.forEach(function (h) { max = Math.max(max, h.links); });
    hosts.forEach(function (h, i) {
      var y = T + i * rowH, w = Math.max(1, (h.links / max) * pw);
      el('text', { x: L - 6, y: y + 14, 'text-anchor': 'end' }, svg, h.display.length > 34 ? h.display.slice(0, 33) + '…' : h.display);
      var bar = el('rect', { x: L, y: y + 3, width: w.toFixed(1), height: rowH - 6, class: 'bar' }, svg);
      el('title', {}, bar, h.display + ': ' + h.links + ' (page, URL) pairs from ' + h.sites + (h.sites === 1 ? ' site' : ' sites'));
      el('text', { x: L + w + 6, y: y + 14 }, svg, h.links + ' pairs · ' + h.sites + (h.sites === 1 ? ' site' : ' sites'));
    });
    return finish(svg, hosts.length);
  }

  try {
    var drawn = 0;
    drawn += lineChart(document.getElementById('chart-harvest-total'), [{ name: 'all sites', color: '#333', x: data.harvest.x, y: data.harvest.y }], 'pages fetched', 'reward (cumulative)');
    drawn += lineChart(document.getElementById('chart-harvest-sites'), data.sites.map(function (s) {
      return { name: s.label, color: s.color, x: s.harvest.x, y: s.harvest.y };
    }), 'pages fetched from the site', 'reward (cumulative)');
    drawn += choiceChart(document.getElementById('chart-choices'), data.sites, data.choices);
    drawn += barChart(document.getElementById('chart-hosts'), data.topHosts);
    document.body.setAttribute('data-charts-drawn', String(drawn));
  } catch (e) {
    document.body.setAttribute('data-chart-error', String((e && e.message) || e));
    throw e;
  }
})();
`;
