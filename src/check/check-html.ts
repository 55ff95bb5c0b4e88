import { CHECK_COLUMNS, type CheckRow } from './check-rows.js';
import { counted, grouped } from '../markup/counted.js';
import { esc } from '../markup/html-text.js';

export interface CheckSummary {
  site: string;
  generated: string;
  invalidInternal: number;
  externalUrls: number;
  externalChecked: number;
  externalInvalid: number;
  /** distinct external URLs left unchecked (over --max) */
  externalUnchecked: number;
}

/** The check as one self-contained HTML page (no request when viewed). */
export function checkHtml(rows: readonly CheckRow[], s: CheckSummary): string {
  const head = CHECK_COLUMNS.map((c) => `<th>${esc(c)}</th>`).join('');
  const body = rows.map((r) => `<tr class="${r.kind}">${CHECK_COLUMNS.map((c) => `<td>${esc(r[c])}</td>`).join('')}</tr>`).join('\n');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>Link check of ${esc(s.site)}</title>`,
    '<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}tr.external td:first-child{color:#8d6cab}tr.internal td:first-child{color:#c1121f}</style>',
    '</head><body>',
    `<h1>Link check of ${esc(s.site)}</h1>`,
    `<p>${counted(s.invalidInternal, 'invalid internal link')}; ${grouped(s.externalInvalid)} of ${counted(s.externalChecked, 'checked external URL')} invalid` +
      ` (${grouped(s.externalUrls)} distinct, ${grouped(s.externalUnchecked)} not checked); generated ${esc(s.generated)}.</p>`,
    `<table><thead><tr>${head}</tr></thead><tbody>`,
    body,
    '</tbody></table></body></html>',
    '',
  ].join('\n');
}
