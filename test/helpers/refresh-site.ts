import type { Page } from './conditional-site.js';

// The small site the `beebot refresh` tests re-check (refresh-history, pg-refresh-watch): a home
// page linking PAGES pages, each linking home, the next page and an external URL.
export const T0 = new Date('2026-01-01T00:00:00Z');
export const PAGES = 12;
export const body = (i: number, extra = '') => `<p>page ${i} text</p><a href="/">home</a> <a href="/p${(i % PAGES) + 1}">next</a> <a href="http://ext.test/${i}">x</a>${extra}`;

export function refreshSite(): Map<string, Page> {
  const home = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i + 1}">page ${i + 1}</a>`).join(' ');
  return new Map<string, Page>([
    ['/', { body: home, etag: '"h"', modified: T0 }],
    ...Array.from({ length: PAGES }, (_, i): [string, Page] => [`/p${i + 1}`, { body: body(i + 1), etag: `"v1-${i + 1}"`, modified: T0 }]),
  ]);
}
