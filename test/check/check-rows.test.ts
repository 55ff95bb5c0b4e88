// The site's errors as `beebot check` reports them (pure): one row per broken target and linking page.
import { describe, expect, it } from 'vitest';
import { CHECK_COLUMNS, checkRows, rowCells, type CheckRow } from '../../src/check/check-rows.js';
import type { InvalidTarget } from '../../src/map/invalid-links.js';
import type { PageNode } from '../../src/map/page-graph.js';
import type { CachedCheck, SiteExternal } from '../../src/store/url-checks.js';

const node = (id: number, url: string, httpStatus: number | null, error: string | null = null): PageNode => ({
  id, url, status: error === null ? 'done' : 'error', httpStatus, error, contentType: 'text/html', bytes: 100, lastModified: null, title: null,
});
const home = node(1, 'http://s.test/', 200);
const about = node(2, 'http://s.test/about', 200);
const cached = (url: string, status: number | null, error: string | null = null): CachedCheck => ({
  url, key: url, method: 'HEAD', status, finalUrl: url, error, checkedAt: '2026-01-05T09:00:00.000Z',
});
const ext = (url: string, ...from: [string, string][]): SiteExternal => ({ key: url, url, linkedFrom: from.map(([u, anchor]) => ({ url: u, anchor })) });

describe('checkRows', () => {
  it('gives an internal target one row per linking page, with its status or error and no check time', () => {
    const internal: InvalidTarget[] = [
      { page: node(3, 'http://s.test/missing', 404), linkedFrom: [{ page: home, anchor: 'Missing' }, { page: about, anchor: '' }] },
      { page: node(4, 'http://s.test/down', null, 'reset'), linkedFrom: [{ page: about, anchor: 'Down' }] },
    ];
    expect(checkRows(internal, [])).toEqual([
      { kind: 'internal', url: 'http://s.test/missing', status: 404, error: null, linked_from: 'http://s.test/', anchor: 'Missing', checked_at: null },
      { kind: 'internal', url: 'http://s.test/missing', status: 404, error: null, linked_from: 'http://s.test/about', anchor: '', checked_at: null },
      { kind: 'internal', url: 'http://s.test/down', status: null, error: 'reset', linked_from: 'http://s.test/about', anchor: 'Down', checked_at: null },
    ]);
  });

  it('keeps only the broken external URLs, one row per linking page, with when they were checked; internal rows first', () => {
    const internal: InvalidTarget[] = [{ page: node(3, 'http://s.test/missing', 410), linkedFrom: [{ page: home, anchor: 'x' }] }];
    const external = [
      { ext: ext('https://fine.example/', ['http://s.test/', 'Fine']), check: cached('https://fine.example/', 200) },
      { ext: ext('https://moved.example/', ['http://s.test/', 'Moved']), check: cached('https://moved.example/', 301) },
      { ext: ext('https://dead.example/', ['http://s.test/', 'Dead'], ['http://s.test/about', 'Dead too']), check: cached('https://dead.example/', 503) },
      { ext: ext('https://nowhere.example/', ['http://s.test/about', 'Nowhere']), check: cached('https://nowhere.example/', null, 'dns') },
    ];
    expect(checkRows(internal, external).map((r) => [r.kind, r.url, r.status, r.error, r.linked_from, r.anchor, r.checked_at])).toEqual([
      ['internal', 'http://s.test/missing', 410, null, 'http://s.test/', 'x', null],
      ['external', 'https://dead.example/', 503, null, 'http://s.test/', 'Dead', '2026-01-05T09:00:00.000Z'],
      ['external', 'https://dead.example/', 503, null, 'http://s.test/about', 'Dead too', '2026-01-05T09:00:00.000Z'],
      ['external', 'https://nowhere.example/', null, 'dns', 'http://s.test/about', 'Nowhere', '2026-01-05T09:00:00.000Z'],
    ]);
  });

  it('is empty for a site without errors', () => {
    expect(checkRows([], [{ ext: ext('https://fine.example/', ['http://s.test/', 'Fine']), check: cached('https://fine.example/', 200) }])).toEqual([]);
  });
});

describe('rowCells', () => {
  it("gives a row's cells in the order of CHECK_COLUMNS, the header of every format", () => {
    expect(CHECK_COLUMNS).toEqual(['kind', 'url', 'status', 'error', 'linked_from', 'anchor', 'checked_at']);
    const row: CheckRow = { kind: 'external', url: 'https://dead.example/', status: null, error: 'dns', linked_from: 'http://s.test/', anchor: 'Dead', checked_at: '2026-01-05T09:00:00.000Z' };
    expect(rowCells(row)).toEqual(['external', 'https://dead.example/', null, 'dns', 'http://s.test/', 'Dead', '2026-01-05T09:00:00.000Z']);
  });
});
