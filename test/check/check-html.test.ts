// The check as one self-contained HTML page (pure): what a page controls is escaped, nothing is fetched.
import { describe, expect, it } from 'vitest';
import { checkHtml, type CheckSummary } from '../../src/check/check-html.js';
import type { CheckRow } from '../../src/check/check-rows.js';

const summary: CheckSummary = {
  site: 'uni.test', generated: '2026-01-05T09:00:00.000Z', invalidInternal: 3, externalUrls: 12, externalChecked: 10, externalInvalid: 2, externalUnchecked: 2,
};
const internal: CheckRow = { kind: 'internal', url: 'http://uni.test/missing', status: 404, error: null, linked_from: 'http://uni.test/', anchor: 'Missing', checked_at: null };
const external: CheckRow = {
  kind: 'external', url: 'https://dead.example/?a=1&b=2', status: null, error: 'dns', linked_from: 'http://uni.test/', anchor: '<script>alert("x")</script>', checked_at: '2026-01-05T08:59:00.000Z',
};

describe('checkHtml', () => {
  it('is one page with the summary, a header row of the columns and a row per error, classed by its kind', () => {
    const page = checkHtml([internal, external], summary);
    expect(page.startsWith('<!doctype html>\n')).toBe(true);
    expect(page).toContain('<title>Link check of uni.test</title>');
    expect(page).toContain('<p>3 invalid internal links; 2 of 10 checked external URLs invalid (12 distinct, 2 not checked); generated 2026-01-05T09:00:00.000Z.</p>');
    expect(page).toContain('<tr><th>kind</th><th>url</th><th>status</th><th>error</th><th>linked_from</th><th>anchor</th><th>checked_at</th></tr>');
    expect(page).toContain('<tr class="internal"><td>internal</td><td>http://uni.test/missing</td><td>404</td><td></td><td>http://uni.test/</td><td>Missing</td><td></td></tr>');
    expect(page.match(/<tr class="(internal|external)">/g)).toEqual(['<tr class="internal">', '<tr class="external">']);
  });

  it('says its counts as the terminal does: one of a noun is singular, thousands are grouped', () => {
    const page = checkHtml([internal], { ...summary, invalidInternal: 1, externalChecked: 1, externalInvalid: 0, externalUrls: 1_200, externalUnchecked: 1_199 });
    expect(page).toContain('<p>1 invalid internal link; 0 of 1 checked external URL invalid (1,200 distinct, 1,199 not checked);');
    expect(checkHtml([], { ...summary, invalidInternal: 12_345 })).toContain('<p>12,345 invalid internal links;');
  });

  it("escapes what a page or a site's name controls: an anchor's markup is text, a URL's & is &amp;", () => {
    const page = checkHtml([external], { ...summary, site: 'a<b>"c"' });
    expect(page).toContain('<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>');
    expect(page).toContain('<td>https://dead.example/?a=1&amp;b=2</td>');
    expect(page).toContain('<title>Link check of a&lt;b&gt;&quot;c&quot;</title>');
    expect(page).not.toContain('<script>');
  });

  it('makes no request when viewed: a policy that forbids every fetch, and no script, style sheet or image', () => {
    const page = checkHtml([internal, external], summary);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(page).not.toMatch(/<(script|link|img|iframe)\b/);
  });

  it('with no errors is the summary and an empty table', () => {
    const page = checkHtml([], { ...summary, invalidInternal: 0, externalInvalid: 0 });
    expect(page).toContain('<tbody>\n\n</tbody>');
    expect(page).not.toContain('<tr class=');
  });
});
