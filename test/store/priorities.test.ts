// Scoring a site's queue again: the store picks in SQL the pages that `rescores` picks in memory
// (the replay store's rule), and scores them with the order's function.
import { describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/db.js';
import { rescoreQueued } from '../../src/store/priorities.js';
import { rescores, type Prioritize, type Rescore } from '../../src/schedule/links/rescore.js';
import { insertSites } from '../../src/store/sites.js';
import { fingerprint } from '../../src/url/key-hash.js';

const links = [
  { url: 'https://a.example/news/1', anchor: 'news one', cues: 'a:news p:ul.latest', priority: 1 },
  { url: 'https://a.example/about', anchor: 'about us', cues: 'a:about p:nav', priority: 2 },
  { url: 'https://a.example/links', anchor: '', cues: 'p:ul.latest', priority: 1 },
  { url: 'https://a.example/newsletter', anchor: 'letter', cues: 'a:newsletter p:ul.latest2', priority: 3 },
  { url: 'https://a.example/sitemap', anchor: 'map', cues: '', priority: 4 },
  { url: 'https://a.example/unscored', anchor: 'later', cues: 'a:later', priority: null },
];

function queue(): Db {
  const d = openDb(':memory:');
  insertSites(d, [{ url: new URL('https://a.example/') }], 'standard');
  d.prepare(`UPDATE pages SET priority = ? WHERE level = 0`).run(Number.MAX_VALUE);
  const add = d.prepare(`INSERT INTO pages (site_id, key, dir, fp, url, level, priority, anchor, cues) VALUES (1, ?, ?, ?, ?, 1, ?, ?, ?)`);
  for (const l of links) {
    const { dir, fp } = fingerprint(l.url);
    add.run(l.url, dir, fp, l.url, l.priority, l.anchor || null, l.cues || null);
  }
  return d;
}

const priorities = (d: Db): Record<string, number | null> =>
  Object.fromEntries(d.prepare(`SELECT url, priority FROM pages WHERE level = 1 ORDER BY id`).raw().all() as [string, number | null][]);

// A hand-made order: a page's worth from its link alone (its url and anchor when it has no cues, as the orders read them).
const byLink: Prioritize = (_site, url, anchor, state) => (state.cues ? 0 : url.length + anchor.length * 10) + state.cues.length * 100;
const noState = { cash: 0, inherit: 0, dist: 0, inlinks: 0 };

describe('re-scoring a queue', () => {
  const cases: [string, Rescore][] = [
    ['all', 'all'], ['unscored', 'unscored'], ['cues', { cues: ['p:ul.latest', 'a:about'] }],
    ['cues, above a priority', { cues: ['p:ul.latest', 'a:about', 'a:newsletter'], above: 2 }],
  ];
  for (const [name, which] of cases) {
    it(`scores the pages the replay store's rule picks, and only those (${name})`, () => {
      const d = queue();
      rescoreQueued(d, 1, byLink, which);
      const expected = Object.fromEntries(
        links.map((l) => [l.url, rescores(which, l.priority, l.cues || null) ? byLink(1, l.url, l.anchor, { ...noState, cues: l.cues }) : l.priority]),
      );
      expect(priorities(d)).toEqual(expected);
      expect(d.prepare(`SELECT priority FROM pages WHERE level = 0`).pluck().get()).toBe(Number.MAX_VALUE); // a start page stays first
    });
  }

  it('picks whole cues: a page whose cues only start like one of them is left alone', () => {
    const d = queue();
    rescoreQueued(d, 1, byLink, { cues: ['p:ul.latest'] });
    const got = priorities(d);
    expect(got['https://a.example/newsletter']).toBe(3);
    expect(got['https://a.example/about']).toBe(2);
    expect(got['https://a.example/links']).not.toBe(1);
    expect(got['https://a.example/sitemap']).toBe(4); // no stored cues: its turn is the next whole pass
    expect(got['https://a.example/unscored']).toBeNull(); // its turn is the 'unscored' pass
  });

  it('scores a queue longer than one read (pages are read in chunks along the frontier index), each page once', () => {
    const d = queue();
    const add = d.prepare(`INSERT INTO pages (site_id, key, dir, fp, url, level, priority) VALUES (1, ?, ?, ?, ?, ?, 0)`);
    for (let i = 0; i < 4500; i++) {
      const url = `https://a.example/p/${i}`;
      const { dir, fp } = fingerprint(url);
      add.run(url, dir, fp, url, 2 + (i % 3));
    }
    const seen: string[] = [];
    rescoreQueued(d, 1, (site, url, anchor, state) => (seen.push(url || state.cues), byLink(site, url, anchor, state)), 'all');
    expect(seen.length).toBe(4500 + links.filter((l) => l.priority !== null).length);
    expect(new Set(seen).size).toBe(seen.length);
    const wrong = d.prepare(`SELECT count(*) FROM pages WHERE url LIKE 'https://a.example/p/%' AND priority <> length(url)`).pluck().get();
    expect(wrong).toBe(0);
  });
});
