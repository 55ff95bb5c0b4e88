// Topic-focused crawls (--focus) — terms, the TF-IDF topic and its retraining,
// page text without navigation; and real crawls: relevance stored, harvest rate in status, the
// article's method reaching the topic's pages before breadth-first does, resume exactness.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractLinks } from '../../src/page/extract.js';
import { termCounts, terms } from '../../src/schedule/focus/terms.js';
import { RETRAIN, Topic } from '../../src/schedule/focus/topic.js';
import { beebot, tempDir } from '../helpers/cli.js';
import { servePages } from '../helpers/page-server.js';

describe('terms', () => {
  it('are lowercased words without stop words, plurals folded, counted, most frequent kept', () => {
    expect(terms('The Regular Expressions of Python, and a regular expression: re.match!')).toEqual([
      'regular', 'expression', 'python', 'regular', 'expression', 're', 'match',
    ]);
    expect(terms('libraries classes matches status')).toEqual(['library', 'class', 'match', 'status']);
    expect(termCounts('bb aa aa cc cc cc', 2)).toEqual({ cc: 3, aa: 2 });
  });
});

describe('topic', () => {
  it('scores pages by cosine similarity in [0, 1], weighs terms by rarity, and retrains on the relevant pages it found', () => {
    const t = new Topic(termCounts('regular expressions'), 0.2);
    expect(t.similarity({})).toBe(0);
    const regex = termCounts('regular expression syntax: a pattern matches text; regular expression groups and pattern flags');
    const soup = termCounts('soup recipes: onions, water, salt and a regular pan');
    expect(t.similarity(regex)).toBeGreaterThan(t.similarity(soup));
    expect(t.similarity(termCounts('regular expression'))).toBeCloseTo(1, 12);
    expect(t.similarity(regex)).toBeLessThanOrEqual(1);
    // a term on every page fetched so far weighs less than a rare one
    for (let i = 0; i < 20; i++) t.observe(termCounts('regular pan recipe'));
    const rareWins = t.similarity(termCounts('expression pan')) > t.similarity(termCounts('regular pan'));
    expect(rareWins).toBe(true);
    // after RETRAIN relevant pages the topic learns the words that come with it ('pattern')
    const before = t.similarity(termCounts('pattern'));
    expect(before).toBe(0);
    const already = t.relevantPages; // 'regular pan recipe' pages were relevant enough
    while (t.relevantPages < RETRAIN) expect(t.observe(regex)).toBeGreaterThanOrEqual(t.threshold);
    expect(t.relevantPages - already).toBe(RETRAIN - already);
    expect(t.terms(5)).toContain('pattern');
    expect(t.similarity(termCounts('pattern'))).toBeGreaterThan(0);
  });

  it('reads a page\'s title and text without its navigation (menus, sidebars, headers, footers)', () => {
    const html = `<html><head><title>Regex HOWTO</title><style>p{}</style></head><body>
      <nav><a href="/">Home</a> Soup</nav><div class="sphinxsidebar">Recipes</div><div id="main-menu">Menu</div>
      <div class="body"><h1>Regular expressions</h1><p>Patterns <b>match</b> text.</p></div><footer>Copyright</footer></body></html>`;
    const { title, text } = extractLinks(html, { text: { maxBody: 1000 } });
    expect([title, text]).toEqual(['Regex HOWTO', { title: 'Regex HOWTO', headings: 'Regular expressions', body: 'Patterns match text.' }]);
  });
});

// site.test: 6 dull sections of 3 pages each, then /text/ whose pages are about regular expressions.
const dull = ['soup', 'bread', 'cake', 'fish', 'rice', 'tea'];
const page = (title: string, body: string, links: string[]) =>
  `<html><head><title>${title}</title></head><body><nav><a href="/">home</a></nav><p>${body}</p>${links.map((l) => `<a href="${l}">${l.split('/').filter(Boolean).pop() ?? 'x'}</a>`).join(' ')}</body></html>`;
const pages: Record<string, string> = {
  '/': page('Cookbook and other notes', 'Welcome.', [...dull.map((d) => `/${d}/`), '/text/']),
  '/text/': page('Text processing', 'Tools for text: search, regular expressions, patterns.', ['/text/regex-syntax.html', '/text/other.html']),
  '/text/regex-syntax.html': page('Regular expression syntax', 'A regular expression is a pattern. Regular expressions match text; the pattern syntax has groups.', ['/text/regex-groups.html']),
  '/text/regex-groups.html': page('Groups in regular expressions', 'Groups capture parts of a regular expression match. Named groups in a pattern.', ['/text/regex-flags.html']),
  '/text/regex-flags.html': page('Regular expression flags', 'Flags change how a regular expression pattern matches: ignore case, multiline.', []),
  '/text/other.html': page('Other text tools', 'Counting words and lines.', []),
};
for (const d of dull) {
  pages[`/${d}/`] = page(`${d} recipes`, `Recipes for ${d}: water, salt, heat.`, [1, 2, 3].map((i) => `/${d}/r${i}.html`));
  for (const i of [1, 2, 3]) pages[`/${d}/r${i}.html`] = page(`${d} recipe ${i}`, `Take ${d}, add water and salt; cook for ${i} hours.`, []);
}
const regexPages = ['/text/regex-syntax.html', '/text/regex-groups.html', '/text/regex-flags.html'];

let site: Awaited<ReturnType<typeof servePages>>;
let port: number;
let tmp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  tmp = tempDir();
  site = await servePages(pages);
  port = site.port;
});
afterAll(async () => {
  await site.close();
  tmp.cleanup();
});

const crawlArgs = () => ['crawl', '--delay', '0', '--concurrency', '1', '--resolve', `site.test:${port}:127.0.0.1`];
const fetchedOrder = (db: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare('SELECT p.url, p.relevance FROM fetches f JOIN pages p ON p.id = f.page_id ORDER BY f.seq').raw().all() as [string, number][];
  } finally {
    d.close();
  }
};
const crawlFocused = async (name: string, ...args: string[]) => {
  const db = join(tmp.dir, `${name}.db`);
  await beebot(['seeds', 'add', `http://site.test:${port}/`], { db });
  const r = await beebot([...crawlArgs(), '--focus', 'regular expressions', ...args], { db });
  expect(r.code, r.stderr).toBe(0);
  return { db, order: fetchedOrder(db).map(([u, rel]) => [new URL(u).pathname, rel] as const) };
};

describe('--focus', () => {
  it('stores each page\'s relevance, shows the harvest rate, and the article\'s method reaches the topic\'s pages first', async () => {
    const bfs = await crawlFocused('bfs', '--order', 'bfs');
    const best = await crawlFocused('best', '--order', 'best-first');
    const positions = (o: (readonly [string, number])[]) => regexPages.map((p) => o.findIndex(([u]) => u === p));
    // breadth-first: the regex pages come after every dull recipe (levels 2, 3, 4)
    expect(Math.min(...positions(bfs.order))).toBeGreaterThan(20);
    expect(Math.max(...positions(best.order))).toBeLessThan(Math.min(...positions(bfs.order)));
    // every page scored; the regex pages and the section that introduces them are the relevant ones (threshold 0.2)
    const relevant = best.order.filter(([, r]) => r >= 0.2).map(([u]) => u).sort();
    expect(relevant).toEqual(['/text/', ...regexPages].sort());
    expect(best.order.every(([, r]) => r >= 0 && r <= 1)).toBe(true);
    const st = JSON.parse((await beebot(['status', '--json'], { db: best.db })).stdout);
    expect(st.focus).toEqual({ topic: 'regular expressions', threshold: 0.2 });
    expect([st.totals.relevant, st.totals.harvest_rate]).toEqual([4, Math.round((4 / best.order.length) * 10_000) / 10_000]);
    const table = (await beebot(['status'], { db: best.db })).stdout;
    expect(table).toMatch(/relevant\tharvest/);
    expect(table).toMatch(/focus: "regular expressions"; relevant: cosine similarity >= 0.2/);
  });

  it('resumes exactly: a focused crawl stopped every few pages continues in the same order with the same scores', async () => {
    const whole = await crawlFocused('whole', '--order', 'best-first');
    const db = join(tmp.dir, 'steps.db');
    await beebot(['seeds', 'add', `http://site.test:${port}/`], { db });
    for (let n = 2; n <= whole.order.length; n += 5) {
      const r = await beebot([...crawlArgs(), '--focus', 'regular expressions', '--order', 'best-first', '--budget', String(n)], { db });
      expect(r.code, r.stderr).toBe(0);
    }
    await beebot([...crawlArgs(), '--budget', 'none'], { db });
    expect(fetchedOrder(db).map(([u, r]) => [new URL(u).pathname, r])).toEqual(whole.order);
  });

  it('takes the topic from a file of example text; a missing file or both options is a usage error', async () => {
    const db = join(tmp.dir, 'file.db');
    await beebot(['seeds', 'add', `http://site.test:${port}/`], { db });
    const file = join(tmp.dir, 'topic.html');
    writeFileSync(file, '<html><script>var soup = 1;</script><p>Regular expression patterns and groups</p></html>');
    const r = await beebot([...crawlArgs(), '--focus-file', file, '--budget', '3'], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse((await beebot(['config', 'get', 'focus', '--json'], { db })).stdout)).toBe('Regular expression patterns and groups');
    const missing = await beebot([...crawlArgs(), '--focus-file', join(tmp.dir, 'nope.txt')], { db });
    expect([missing.code, missing.stderr.trim()]).toEqual([2, expect.stringMatching(/^beebot: --focus-file: cannot read .*nope\.txt: no such file$/)]);
    const both = await beebot([...crawlArgs(), '--focus', 'x', '--focus-file', file], { db });
    expect([both.code, both.stderr.trim()]).toEqual([2, 'beebot: give --focus or --focus-file, not both']);
  });
});
