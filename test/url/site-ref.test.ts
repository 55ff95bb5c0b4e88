// Which site a user means by what they type: the pure rule, and the CLI naming a site by its host.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteNamed } from '../../src/url/site-ref.js';
import { beebot, tempDir } from '../helpers/cli.js';

const sites = [
  { id: 1, url: 'http://scikit-learn.org/1.2/index.html', short: 'skl' },
  { id: 2, url: 'https://www.spbu.ru/', short: null },
  { id: 3, url: 'http://docs.example.org/a/', short: 'a' },
  { id: 4, url: 'http://docs.example.org/b/', short: 'b' },
];
const named = (ref: string) => {
  const r = siteNamed(sites, ref);
  return 'site' in r ? r.site.id : 'several' in r ? r.several.map((s) => s.id) : null;
};

describe('siteNamed', () => {
  it('by id, short name, start URL (a bare domain meaning https://, www. and a trailing slash aside)', () => {
    expect([named('2'), named('9'), named('skl'), named('http://scikit-learn.org/1.2/index.html'), named('spbu.ru'), named('https://www.spbu.ru'), named('docs.example.org/a/')])
      .toEqual([2, null, 1, 1, 2, 2, 3]);
  });

  it('by its host alone when one site is on it; a host of several names them all; a path or query of no site names none', () => {
    expect([named('scikit-learn.org'), named('www.scikit-learn.org'), named('http://scikit-learn.org/')]).toEqual([1, 1, 1]);
    expect(named('docs.example.org')).toEqual([3, 4]);
    expect([named('scikit-learn.org/1.3/'), named('scikit-learn.org/?q=1'), named('other.org'), named('not a url')]).toEqual([null, null, null, null]);
  });
});

describe('the CLI', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => (tmp = tempDir()));
  afterAll(() => tmp.cleanup());

  it('removes a site named by its host; a host two prefix sites share is a usage error naming both, and removes nothing', async () => {
    const db = join(tmp.dir, 'ref.db');
    for (const [url, scope] of [['http://scikit-learn.org/1.2/index.html', 'host'], ['http://docs.example.org/a/', 'prefix'], ['http://docs.example.org/b/', 'prefix']]) {
      expect((await beebot(['seeds', 'add', url!, '--scope', scope!], { db })).code).toBe(0);
    }
    const shared = await beebot(['seeds', 'remove', 'docs.example.org', '--yes'], { db });
    expect([shared.code, shared.stderr]).toEqual([2, "beebot: 'docs.example.org' is the host of 2 sites (2: http://docs.example.org/a/, 3: http://docs.example.org/b/): name one by its id, short name or start URL\n"]);
    const r = await beebot(['seeds', 'remove', 'scikit-learn.org', '--yes'], { db });
    expect([r.code, r.stdout]).toEqual([0, 'removed 1 http://scikit-learn.org/1.2/index.html\n']);
    const left = JSON.parse((await beebot(['seeds', 'list', '--json'], { db })).stdout) as { id: number }[];
    expect(left.map((s) => s.id)).toEqual([2, 3]);
  });
});
