// The page fingerprint as docs/commands.md states it, through `crawl --refresh` on a loopback site: a
// change of navigation text is a change; new attributes and whitespace are not.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beebot, tempDir } from '../helpers/cli.js';
import { conditionalSite, type Page } from '../helpers/conditional-site.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const pages = new Map<string, Page>([
  ['/', { body: '<a href="/menu">menu</a> <a href="/layout">layout</a>', etag: '"h"', modified: T0 }],
  ['/menu', { body: '<nav><a href="/">Home</a> About us</nav><p>text</p>', etag: '"m1"', modified: T0 }],
  ['/layout', { body: '<p class="a">some text</p><a href="/">home</a>', etag: '"l1"', modified: T0 }],
]);
let site: Awaited<ReturnType<typeof conditionalSite>>;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  site = await conditionalSite(pages);
  tmp = tempDir();
});
afterAll(async () => {
  await site?.close();
  tmp?.cleanup();
});

describe('page fingerprint', () => {
  it('counts navigation text, leaves out markup and whitespace', async () => {
    const db = join(tmp.dir, 'fp.db');
    const run = (...args: string[]) => beebot(['crawl', '--delay', '0', '--resolve', `site.test:${site.port}:127.0.0.1`, ...args], { db });
    expect((await beebot(['seeds', 'add', `http://site.test:${site.port}/`], { db })).code).toBe(0);
    expect((await run()).code).toBe(0);
    const T1 = new Date('2026-02-01T00:00:00Z');
    pages.set('/menu', { body: '<nav><a href="/">Home</a> About the lab</nav><p>text</p>', etag: '"m2"', modified: T1 });
    pages.set('/layout', { body: '<p class="b"   data-session="x9">some\n   text</p>\n<a href="/">home</a>', etag: '"l2"', modified: T1 });
    const r = await run('--refresh');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1 unchanged (304), 1 re-read with the same text and links, 1 changed, 0 gone');
  });
});
