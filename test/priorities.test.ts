// Scoring a site's queue again: from the rows, or from the first links kept in memory (the value
// order), the same pages get the same priorities.
import { describe, expect, it } from 'vitest';
import { openDb, type Db } from '../src/db/db.js';
import { FirstLinks, rescoreQueued, type Prioritize } from '../src/store/priorities.js';
import { insertSites } from '../src/store/sites.js';
import { fingerprint } from '../src/url/key-hash.js';

const links = [
  { url: 'https://a.example/news/1', anchor: 'news one', cues: 'a:news p:ul.latest', priority: 1 },
  { url: 'https://a.example/about', anchor: 'about us', cues: 'a:about p:nav', priority: 2 },
  { url: 'https://a.example/links', anchor: '', cues: 'p:ul.latest', priority: 1 },
  { url: 'https://a.example/sitemap', anchor: 'map', cues: '', priority: 4 },
  { url: 'https://a.example/unscored', anchor: 'later', cues: 'a:later', priority: null },
];

function queue(): Db {
  const d = openDb(':memory:');
  insertSites(d, [{ url: new URL('https://a.example/') }], 'standard');
  d.prepare(`UPDATE pages SET priority = ? WHERE level = 0`).run(Number.MAX_VALUE);
  const add = d.prepare(
    `INSERT INTO pages (site_id, key, dir, fp, url, level, priority, anchor, cues) VALUES (1, ?, ?, ?, ?, 1, ?, ?, ?)`,
  );
  for (const l of links) {
    const { dir, fp } = fingerprint(l.url);
    add.run(l.url, dir, fp, l.url, l.priority, l.anchor || null, l.cues || null);
  }
  return d;
}

const priorities = (d: Db): Record<string, number | null> =>
  Object.fromEntries((d.prepare(`SELECT url, priority FROM pages ORDER BY id`).raw().all() as [string, number | null][]));

// A hand-made order: a page's worth from its first link alone.
const byLink: Prioritize = (_site, url, anchor, state) => url.length + anchor.length * 10 + state.cues.length * 100;

describe('re-scoring a queue', () => {
  for (const which of ['all', { cues: ['p:ul.latest'] }] as const) {
    it(`gives the same priorities from the rows and from first links kept in memory (${typeof which === 'string' ? which : 'cues'})`, () => {
      const rows = queue();
      rescoreQueued(rows, 1, byLink, which);
      const memory = queue();
      const first = new FirstLinks(memory);
      first.add(3, { url: links[1]!.url, anchor: links[1]!.anchor, cues: links[1]!.cues }); // one known, the others read when needed
      rescoreQueued(memory, 1, byLink, which, first);
      expect(priorities(memory)).toEqual(priorities(rows));
      const got = priorities(rows);
      expect(got['https://a.example/']).toBe(Number.MAX_VALUE); // a start page stays first
      expect(got['https://a.example/unscored']).toBeNull(); // its turn is the 'unscored' pass
      expect(got['https://a.example/news/1']).toBe(byLink(1, links[0]!.url, links[0]!.anchor, { cues: links[0]!.cues, cash: 0, inherit: 0, dist: 0, inlinks: 0 }));
      // A targeted pass leaves the pages that share none of its cues alone; pages without cues are always scored.
      expect(got['https://a.example/about']).toBe(which === 'all' ? byLink(1, links[1]!.url, links[1]!.anchor, { cues: links[1]!.cues, cash: 0, inherit: 0, dist: 0, inlinks: 0 }) : 2);
      expect(got['https://a.example/sitemap']).not.toBe(4);
    });
  }
});
