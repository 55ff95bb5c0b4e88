import type { LinkedType, MapPage, SiteMap } from './site-map.js';
import { esc } from '../markup/html-text.js';


/** 1234567 → "1.2 MB" */
export function humanBytes(n: number | null): string {
  if (n === null) return '–';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

// One colour per content type family, so a gallery of images stands out at a glance.
function colour(type: string): string {
  if (type.startsWith('image/')) return '#2a9d8f';
  if (type === 'text/html' || type === 'application/xhtml+xml') return '#457b9d';
  if (type === 'application/pdf') return '#e63946';
  if (type.startsWith('video/') || type.startsWith('audio/')) return '#f4a261';
  if (type === 'unknown') return '#adb5bd';
  return '#8d6cab';
}

/** A small horizontal bar chart of the bytes a page links, per content type (inline SVG). */
export function linkedChart(linked: readonly LinkedType[]): string {
  if (!linked.length) return '';
  const rowH = 14;
  const barW = 160;
  const max = Math.max(1, ...linked.map((l) => l.bytes));
  const rows = linked.map((l, i) => {
    const w = Math.max(l.bytes > 0 ? 2 : 0, Math.round((l.bytes / max) * barW));
    const y = i * rowH;
    return (
      `<rect x="0" y="${y + 2}" width="${w}" height="${rowH - 4}" fill="${colour(l.type)}"><title>${esc(l.type)}: ${l.count} linked, ${esc(humanBytes(l.bytes))}</title></rect>` +
      `<text x="${barW + 6}" y="${y + rowH - 3}">${esc(l.type)} ×${l.count} · ${esc(humanBytes(l.bytes))}</text>`
    );
  });
  return `<svg class="chart" role="img" aria-label="sizes of linked files by type" width="${barW + 260}" height="${linked.length * rowH}" viewBox="0 0 ${barW + 260} ${linked.length * rowH}">${rows.join('')}</svg>`;
}

function summary(p: MapPage): string {
  const bad = (p.httpStatus ?? 0) >= 400 || p.status === 'error';
  return (
    `<summary${bad ? ' class="bad"' : ''}><span class="title">${esc(p.title ?? p.anchor ?? p.url)}</span>` +
    ` <a href="${esc(p.url)}" rel="nofollow noreferrer">${esc(p.url)}</a>` +
    ` <span class="facts">${esc(p.kind)} · ${esc(p.status)}${p.httpStatus !== null ? ` ${p.httpStatus}` : ''}` +
    ` · PR ${p.rank.toFixed(3)} · ${esc(humanBytes(p.bytes))} · ${esc(p.contentType ?? '–')}</span></summary>`
  );
}

// .title isolated: a page's title (its author's text) may hold a bidi override that is never
// closed, which would otherwise reverse the URL and facts after it on the line. A row wraps, a
// long title or URL anywhere: one line per page ran off the right edge of the window.
const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}details{margin-left:1.2em}summary{cursor:pointer;overflow-wrap:anywhere}
summary .title{font-weight:600;unicode-bidi:isolate}summary a{color:#555;font-size:.85em}summary .facts{color:#666;font-size:.85em;white-space:nowrap}
summary.bad .title{color:#c1121f}.chart{display:block;margin:.2em 0 .4em 1.6em;font-size:10px}
.chart text{fill:#444}.meta{color:#555}`;

/** One self-contained HTML page (no request when viewed): the tree as nested <details>. */
export function mapHtml(m: SiteMap, o: { site: string; generated: string }): string {
  const out: string[] = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    // No request may leave the page: links are for the reader to click, nothing loads by itself.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>Map of ${esc(o.site)}</title><style>${CSS}</style></head><body>`,
    `<h1>Map of ${esc(o.site)}</h1>`,
    `<p class="meta">${m.pages} pages (${m.indexed} indexed, ${m.registered} registered) from ${esc(m.start)};` +
      ` PageRank k = ${m.damping}, the article's unnormalized form (ranks sum to the number of pages); generated ${esc(o.generated)}.</p>`,
  ];
  const tree = (roots: MapPage[], open: boolean) => {
    const stack: (MapPage | string)[] = [...roots].reverse();
    while (stack.length) {
      const x = stack.pop()!;
      if (typeof x === 'string') {
        out.push(x);
        continue;
      }
      out.push(`<details${open && x.depth <= 1 ? ' open' : ''} data-page="${x.id}" data-depth="${x.depth}">${summary(x)}${linkedChart(x.linked)}`);
      stack.push('</details>');
      for (let i = x.children.length - 1; i >= 0; i--) stack.push(x.children[i]!);
    }
  };
  tree([m.root], true);
  if (m.unreached.length) {
    out.push(`<h2>Not reached from the start page (${m.unreached.length})</h2>`);
    tree(m.unreached, false);
  }
  out.push('</body></html>', '');
  return out.join('\n');
}
