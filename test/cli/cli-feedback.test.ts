// What the CLI tells a user who hits the edges: check's exit codes and an offline check, search
// without a text index, config set's echo, a capped site's word, status fitting the terminal.
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { listenLoopback } from '../../fixtures/listen.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, beebot, tempDir } from '../helpers/cli.js';
import { servePages } from '../helpers/page-server.js';
import { renderFile } from '../helpers/browser.js';
import { withFixtureWeb } from '../helpers/fixture-run.js';
import { seedFixture } from '../helpers/fixture-db.js';

let tmp: ReturnType<typeof tempDir>;
let site: Awaited<ReturnType<typeof servePages>>;
let closedPort: number;
const LONG_URL = 'http://out.example/a-rather-long-folder/and-another-folder/yet-another-folder/the-page.html?x=1';
let n = 0;
const newDb = () => join(tmp.dir, `db-${++n}.db`);
const resolve = () => ['--resolve', `site.test:${site.port}:127.0.0.1`, '--resolve', `gone-a.test:${closedPort}:127.0.0.1`, '--resolve', `gone-b.test:${closedPort}:127.0.0.1`];

/** A port nothing listens on: connections to it are refused at once, as when offline behind a dead proxy. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function crawledSite(...config: [string, string][]): Promise<string> {
  const db = newDb();
  expect((await beebot(['seeds', 'add', `http://site.test:${site.port}/`, '--short', 'st'], { db })).code).toBe(0);
  for (const [k, v] of config) expect((await beebot(['config', 'set', k, v], { db })).code).toBe(0);
  const r = await beebot(['crawl', '--delay', '0', ...resolve()], { db });
  expect(r.code, r.stderr).toBe(0);
  return db;
}

/** A new database with the one site `host`.test of the loopback server, crawled. */
async function crawledHost(host: string): Promise<string> {
  const db = newDb();
  expect((await beebot(['seeds', 'add', `http://${host}.test:${site.port}/`], { db })).code).toBe(0);
  const r = await beebot(['crawl', '--delay', '0', '--resolve', `${host}.test:${site.port}:127.0.0.1`], { db });
  expect(r.code, r.stderr).toBe(0);
  return db;
}

beforeAll(async () => {
  tmp = tempDir();
  closedPort = await freePort();
  site = await servePages({
    '/': '<a href="/a">a</a> <a href="/b">b</a>',
    '/a': `<a href="http://gone-a.test:${closedPort}/x">out</a> <a href="/c">c</a>`,
    '/b': `<a href="http://gone-b.test:${closedPort}/">out</a>`,
    '/c': 'the end',
    // a page whose anchor texts hold bidi controls (the right-to-left override never closed)
    'long.test/': `<a href="${LONG_URL}">${'an anchor text long enough to need cutting '.repeat(3)}</a> <a href="/${'a-long-folder-name/'.repeat(12)}page">in</a>`,
    [`long.test/${'a-long-folder-name/'.repeat(12)}page`]: `<title>${'A title of many words '.repeat(12)}</title>`,
    'tunnel.test/': `<a href="https://secure-a.test/${'folder/'.repeat(15)}page.html">a</a> <a href="https://secure-b.test/">b</a>`,
    'words.test/': '<a href="mailto:a@x.test">m</a> <a href="mailto:b@x.test">m</a> <a href="javascript:void(0)">j</a> <a href="">e</a> <a href="http://out.test/">o</a>',
    'fails.test/': '<a href="/ok">ok</a> <a href="/busy">busy</a>',
    'fails.test/ok': 'fetched',
    'fails.test/busy': { type: 'text/html', body: 'try later', status: 503 },
    'bidi.test/': '<a href="http://out.test/x">\u202Egnp.exe</a> <a href="http://out.test/y">a\u2066b\u200Fc\u061Cd\u202Ae</a>',
  });
});
afterAll(async () => {
  await site?.close();
  tmp?.cleanup();
});

describe('check', () => {
  it('exits 0 when nothing invalid was found', async () => {
    const db = await crawledSite();
    const r = await beebot(['check', 'st', '--no-external'], { db });
    expect([r.code, r.stdout]).toEqual([0, 'kind\turl\tstatus\terror\tlinked_from\tanchor\tchecked_at\n']);
  });

  it('when no external URL answers: says so in one more line, and exits 1 with the rows written', async () => {
    const db = await crawledSite();
    const r = await beebot(['check', 'st', '--delay', '0', ...resolve()], { db });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout.trim().split('\n').slice(1).map((l) => l.split('\t').slice(0, 2))).toEqual([
      ['external', `http://gone-a.test:${closedPort}/x`], ['external', `http://gone-b.test:${closedPort}/`],
    ]);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^beebot: none of the 2 external URLs checked now answered \(refused\): offline, or a proxy needed \(--proxy\)\?.*--recheck/);
  });

  it("through a proxy that refuses the tunnel: the crawl's short reason, a hint about the proxy, rows that fit the terminal", async () => {
    const proxy = createHttpServer((_req, res) => res.writeHead(502).end());
    proxy.on('connect', (_req, socket: Socket) => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    const port = await listenLoopback(proxy);
    try {
      const db = newDb();
      expect((await beebot(['seeds', 'add', `http://tunnel.test:${site.port}/`, '--short', 'tn'], { db })).code).toBe(0);
      expect((await beebot(['crawl', '--delay', '0', '--resolve', `tunnel.test:${site.port}:127.0.0.1`], { db })).code).toBe(0);
      const args = ['--db', db, 'check', 'tn', '--delay', '0', '--proxy', `http://127.0.0.1:${port}`];
      const screen = (await onTerminal(100, args, [1])).trimEnd().split('\n');
      const table = screen.slice(screen.findIndex((l) => l.startsWith('kind ')));
      expect(table).toHaveLength(3);
      for (const l of table) expect(l.length, l).toBeLessThanOrEqual(100);
      // the URL cut after a folder, never inside one
      expect(table[1]).toMatch(/^external +https:\/\/secure-a\.test\/(folder\/)*…(\/page\.html)? /);
      const r = await beebot(['check', 'tn', '--json', '--recheck', '--delay', '0', '--proxy', `http://127.0.0.1:${port}`], { db });
      expect(r.code, r.stderr).toBe(1);
      expect((JSON.parse(r.stdout) as { error: string }[]).map((x) => x.error)).toEqual(['proxy refused the tunnel (502)', 'proxy refused the tunnel (502)']);
      const hint = r.stderr.trim().split('\n')[1];
      expect(hint).toMatch(/^beebot: none of the 2 external URLs checked now answered \(proxy refused the tunnel \(502\)\): is the proxy http:\/\/127\.0\.0\.1:\d+ working/);
      expect(hint).not.toContain('proxy needed');
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });

  it('--no-external says the external URLs were not checked, not "0 of 0 invalid"', async () => {
    const db = await crawledSite();
    const r = await beebot(['check', 'st', '--no-external'], { db });
    expect(r.stderr).toBe('st: 0 invalid internal links to 0 pages; external URLs not checked (--no-external)\n');
  });
});

describe('search without a text index', () => {
  it('exits 1 with one line and prints no header', async () => {
    const db = await crawledSite();
    const r = await beebot(['search', 'end'], { db });
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: "beebot: no page text is indexed: run 'beebot config set index-text yes' before crawling\n" });
  });
});

describe('search with part of the pages indexed', () => {
  it('config set says the pages fetched before stay unindexed; search says how many it covers, and plainly when nothing matched (exit 1, as grep)', async () => {
    const db = await crawledSite(); // 4 pages, crawled with index-text no
    const set = await beebot(['config', 'set', 'index-text', 'yes'], { db });
    expect(set.stdout).toBe('index-text = yes (was no)\n');
    expect(set.stderr).toBe('the 4 HTML pages of the 4 fetched stay unindexed (beebot keeps no page text to index them from); HTML pages fetched from now on are indexed. To search them all, crawl again into a new database with index-text yes\n');
    expect((await beebot(['seeds', 'add', `http://fails.test:${site.port}/`], { db })).code).toBe(0);
    expect((await beebot(['crawl', '--delay', '0', '--resolve', `fails.test:${site.port}:127.0.0.1`], { db })).code).toBe(0);
    const hit = await beebot(['search', 'fetched'], { db });
    expect(hit.code, hit.stderr).toBe(0);
    expect(hit.stdout.split('\n')[1]).toMatch(/^http:\/\/fails\.test:\d+\/ok\t/);
    expect(hit.stderr).toBe('1 page shown; 2 of the 6 HTML pages of the 6 fetched are indexed (4 HTML pages fetched with index-text no)\n');
    const none = await beebot(['search', 'erlang process'], { db });
    expect(none).toMatchObject({ code: 1, stdout: '', stderr: 'no page matches "erlang process"; 2 of the 6 HTML pages of the 6 fetched are indexed (4 HTML pages fetched with index-text no)\n' });
    expect(await beebot(['search', 'erlang', '--json'], { db })).toMatchObject({ code: 1, stdout: '[]\n' });
  });
});

describe('pages fetched, one count in every command', () => {
  const fx = withFixtureWeb();
  /** A new database with the fixture web crawled, index-text as given; the crawl's summary. */
  const crawled = async (indexText: 'yes' | 'no') => {
    const db = newDb();
    await seedFixture(fx.web, fx.tmp.dir, db);
    expect((await beebot(['config', 'set', 'index-text', indexText], { db })).code).toBe(0);
    const r = await beebot(['crawl', '--delay', '0', '--concurrency', '4', ...fx.web.resolveArgs()], { db });
    expect(r.code, r.stderr).toBe(0);
    return { db, summary: r.stdout };
  };
  /** status --json's totals: every pull, and the HTML pages among them. */
  const totals = async (db: string) => JSON.parse((await beebot(['status', '--json'], { db })).stdout).totals as { pages_fetched: number; html_pages: number };

  it('status, the crawl summary, search, config set and the report count the same pages fetched, and say which are HTML pages', async () => {
    const { db, summary } = await crawled('yes');
    const t = await totals(db);
    // the fixture web has errors, redirects and a text/plain page: more pulls than HTML pages
    expect(t.html_pages).toBeGreaterThan(100);
    expect(t.pages_fetched).toBeGreaterThan(t.html_pages);
    const others = `${t.pages_fetched - t.html_pages} others: not HTML, errors or redirects`;
    const words = `${t.html_pages} HTML pages of the ${t.pages_fetched} fetched`;
    expect(summary).toContain(`\ndatabase: ${words} (${others}); `);
    expect((await beebot(['status'], { db })).stdout.split('\n')).toContain(`fetched: ${words} (${others})`);
    const s = await beebot(['search', 'university', '--limit', '1'], { db });
    expect(s.stderr).toBe(`1 page shown; all ${words} are indexed (${others})\n`);
    const file = join(fx.tmp.dir, 'counts-report.html');
    expect((await beebot(['report', file, '--quiet'], { db })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(`<b>${t.pages_fetched}</b>pages fetched<br>${t.html_pages} HTML pages, ${others}</div>`);

    const plain = (await crawled('no')).db;
    const p = await totals(plain);
    const set = await beebot(['config', 'set', 'index-text', 'yes'], { db: plain });
    expect(set.stderr).toBe(
      `the ${p.html_pages} HTML pages of the ${p.pages_fetched} fetched stay unindexed (beebot keeps no page text to index them from; ${p.pages_fetched - p.html_pages} others: not HTML, errors or redirects); ` +
        'HTML pages fetched from now on are indexed. To search them all, crawl again into a new database with index-text yes\n',
    );
    expect((await beebot(['status'], { db: plain })).stdout.split('\n')).toContain(`fetched: ${p.html_pages} HTML pages of the ${p.pages_fetched} fetched (${p.pages_fetched - p.html_pages} others: not HTML, errors or redirects)`);
  }, 60_000);
});

describe('config set', () => {
  it('echoes the value now stored, and what it was', async () => {
    const db = newDb();
    expect(await beebot(['config', 'set', 'max-level', '3'], { db })).toMatchObject({ code: 0, stdout: 'max-level = 3 (was 5)\n' });
    expect(await beebot(['config', 'set', 'max-level', '3'], { db })).toMatchObject({ code: 0, stdout: 'max-level = 3 (unchanged)\n' });
    expect(await beebot(['config', 'set', 'budget', 'none'], { db })).toMatchObject({ code: 0, stdout: 'budget = none (unchanged)\n' });
  });
});

describe('a site at max-pages-per-site', () => {
  it("is 'capped' in the crawl summary as in status", async () => {
    const db = newDb();
    await beebot(['seeds', 'add', `http://site.test:${site.port}/`, '--short', 'st'], { db });
    await beebot(['config', 'set', 'max-pages-per-site', '2'], { db });
    const r = await beebot(['crawl', '--delay', '0', ...resolve()], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('stopped: no site has a page to fetch in this run: 0 exhausted, 1 capped; the 2 pages left are accounted for below\n');
    expect(r.stdout).toContain('left queued: 2 pages of 1 site: 2 due (beyond max-pages-per-site)\n');
    expect(r.stdout).not.toContain('exhausted\n');
    const st = JSON.parse((await beebot(['status', '--json'], { db })).stdout) as { sites: { state: string }[] };
    expect(st.sites.map((s) => s.state)).toEqual(['capped']);
  });
});

/** The CLI on a pseudo-terminal of `cols` columns (util-linux script), its output with CRLF made LF. */
function onTerminal(cols: number, args: string[], codes = [0]): Promise<string> {
  const cmd = `stty cols ${cols} rows 50; ${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env: { ...process.env, TERM: 'xterm' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.on('error', reject);
    child.on('close', (code) => (codes.includes(code!) ? resolve(text.replace(/\r\n/g, '\n')) : reject(new Error(`script exited ${code}: ${text}`))));
  });
}

describe('status on a terminal', () => {
  it('fits 80 columns: fewer columns, reasons below the table; --wide shows them all; piped output keeps every column', async () => {
    const db = await crawledSite();
    await beebot(['seeds', 'add', `http://a-site-with-a-rather-long-host-name-and-no-short-name.test:${closedPort}/`], { db });
    await beebot(['crawl', '--delay', '0', '--resolve', `a-site-with-a-rather-long-host-name-and-no-short-name.test:${closedPort}:127.0.0.1`], { db });
    const narrow = (await onTerminal(80, ['--db', db, 'status'])).trimEnd().split('\n');
    for (const l of narrow) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(narrow[0]).toMatch(/^id\s+site\s+state\s+fetched\s+frontier\s+ext URLs\s+ext hosts\s+ext pairs$/);
    expect(narrow.find((l) => /^ *2 /.test(l))).toMatch(/a-site-[a-z-]*…\s+not-available\s/);
    expect(narrow).toContainEqual(expect.stringMatching(/^a-site-with-a-rather-long-host-name.*: not-available: /));
    expect(narrow.at(-1)).toBe('--wide: also deepest, internal, files, skipped, not followed, reward, politeness');
    const wide = (await onTerminal(80, ['--db', db, 'status', '--wide'])).split('\n');
    expect(wide[0]).toMatch(/ politeness$/);
    const piped = await beebot(['status'], { db });
    expect(piped.stdout.split('\n')[0]!.split('\t')).toEqual(['id', 'site', 'state', 'fetched', 'frontier', 'deepest', 'internal', 'files', 'skipped', 'ext URLs', 'ext hosts', 'ext pairs', 'not followed', 'reward', 'politeness']);
  });

  it("a site's control characters (an escape sequence, a line break in its short name) show as '?' in the terminal's tables and lines", async () => {
    const db = newDb();
    const short = 'ev\x1b]0;title\x07il\nnext';
    expect((await beebot(['seeds', 'add', `http://gone-a.test:${closedPort}/`, '--short', short, '--name', 'N\x1b[31m'], { db })).code).toBe(0);
    await beebot(['crawl', '--delay', '0', ...resolve()], { db });
    const status = await onTerminal(80, ['--db', db, 'status']);
    const list = await onTerminal(80, ['--db', db, 'seeds', 'list']);
    for (const out of [status, list]) expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(status).toMatch(/^ *1 +ev\?]0;tit… +not-available /m);
    expect(status).toMatch(/^ev\?]0;title\?il\?next: not-available: /m);
    expect(list).toMatch(/^ *1 +ev\?]0;title\?il\?next .* N\?\[31m\n/m);
    // piped, the text stays the site's own (TSV cells lose only tabs and line breaks), as --json keeps it
    expect(JSON.parse((await beebot(['status', '--json'], { db })).stdout).sites[0].short).toBe(short);
  });
});

describe('links on a terminal', () => {
  it("a page's bidi controls (U+202E never closed) show as '?' in a terminal's table: they would reorder the row in a bidi terminal", async () => {
    const db = await crawledHost('bidi');
    const links = await onTerminal(250, ['--db', db, 'links', 'external']);
    expect(links).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(links).toMatch(/ \?gnp\.exe /);
    expect(links).toMatch(/ a\?b\?c\?d\?e /);
    // --json keeps the page's text
    const json = JSON.parse((await beebot(['links', 'external', '--json'], { db })).stdout) as { anchor_text: string }[];
    expect(json.map((l) => l.anchor_text)).toEqual(['\u202Egnp.exe', 'a\u2066b\u200Fc\u061Cd\u202Ae']);
  });
});

describe('a command that writes a file', () => {
  it('ends with one line on stderr saying what it wrote and where; --quiet drops it; - (stdout) never has it', async () => {
    const db = await crawledSite();
    const at = (name: string) => join(tmp.dir, `${n}-${name}`);
    const wrote: [string[], string][] = [
      [['export', at('e.csv')], `wrote 2 rows to ${at('e.csv')}`],
      [['export', at('e.jsonl'), '--kind', 'internal'], `wrote 4 rows to ${at('e.jsonl')}`],
      [['export', at('g.gexf')], `wrote the site graph (3 nodes, 2 edges) to ${at('g.gexf')}`],
      [['export', at('g.graphml')], `wrote the site graph (3 nodes, 2 edges) to ${at('g.graphml')}`],
      [['report', at('r.html')], `wrote the report of 1 site to ${at('r.html')}`],
      [['map', 'st', at('m.xml')], `wrote the map of 4 pages to ${at('m.xml')}`],
      [['seeds', 'export', at('s.csv')], `wrote 1 site to ${at('s.csv')}`],
      [['trace', 'export', at('t.json')], `wrote the trace of 4 pages to ${at('t.json')}`],
      [['check', 'st', '--no-external', at('c.csv')], `wrote 0 rows to ${at('c.csv')}`],
    ];
    for (const [args, line] of wrote) {
      const r = await beebot(args, { db });
      expect([r.code, r.stderr.split('\n').at(-2)], args.join(' ')).toEqual([0, line]);
      const quiet = await beebot([...args, '--quiet'], { db });
      expect(quiet.code, args.join(' ')).toBe(0);
      expect(quiet.stderr, args.join(' ')).not.toMatch(/^wrote /m);
    }
    for (const args of [['export', '-'], ['report', '-'], ['seeds', 'export', '-']]) {
      const r = await beebot(args, { db });
      expect([r.code, r.stderr], args.join(' ')).toEqual([0, '']);
    }
  });
});

describe('a count of one', () => {
  it('is singular: "1 page failed", "1 page of 1 site waits", "1 queued page waits for"', async () => {
    const db = newDb();
    expect((await beebot(['seeds', 'add', `http://fails.test:${site.port}/`], { db })).code).toBe(0);
    const r = await beebot(['crawl', '--delay', '0', '--resolve', `fails.test:${site.port}:127.0.0.1`], { db });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^  site http://fails\\.test:${site.port}/: 1 page left: 1 waits for http://fails\\.test:${site.port} \\(HTTP 503; next try \\d\\d:\\d\\d:\\d\\d\\)$`, 'm'));
    expect(r.stdout).toMatch(/^failed for now: \d+ attempts? this run( \(last: .*\))?, kept in the frontier$/m);
    expect(r.stdout).toMatch(/^1 page of 1 site waits to be retried/m);
    const status = await beebot(['status'], { db });
    expect(status.stdout).toMatch(new RegExp(`^fails\\.test: 1 queued page waits for http://fails\\.test:${site.port} \\(failed for now; next try \\d\\d:\\d\\d:\\d\\d or the next crawl\\)$`, 'm'));
  });
});

describe('links external on a terminal', () => {
  it('fits its width: long URLs lose whole folders from their middle, columns that do not fit are named; piped TSV is unchanged', async () => {
    const db = await crawledHost('long');
    const lines = (await onTerminal(100, ['--db', db, 'links', 'external'])).trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(lines[1]).toMatch(/ http:\/\/out\.example\/\S*…/);
    expect(lines.at(-1)).toBe('not shown (--json has them): anchor_text, rel, tag, found_at, last_seen, gone_at');
    const piped = await beebot(['links', 'external'], { db });
    expect(piped.stdout.split('\n')[1]!.split('\t')).toContain(LONG_URL);
    expect(piped.stdout.split('\n')[0]!.split('\t')).toContain('gone_at');
  });
});

describe("the map's HTML page", () => {
  it('fits the browser window: a long title and URL wrap, nothing runs off the right edge', async () => {
    const db = await crawledHost('long');
    const file = join(tmp.dir, `${n}-map.html`);
    expect((await beebot(['map', '1', file], { db })).code).toBe(0);
    const r = await renderFile(file);
    expect(r.html).toContain('a-long-folder-name/a-long-folder-name/');
    expect(r.width.page, r.browser).toBeLessThanOrEqual(r.width.window);
  }, 60_000);
});

describe('one vocabulary', () => {
  it('links not followed are shown by kind, (page, external URL) pairs are called pairs, in the report, status and hosts', async () => {
    const db = await crawledHost('words');
    const file = join(tmp.dir, `${n}-report.html`);
    expect((await beebot(['report', file, '--quiet'], { db })).code).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('<b>4</b>links not followed: 2 mailto, 1 empty, 1 javascript</div>');
    expect(html).not.toMatch(/bad links|>links</);
    const status = (await beebot(['status'], { db })).stdout.split('\n');
    expect(status[0]!.split('\t')).toEqual(expect.arrayContaining(['ext pairs', 'not followed']));
    expect(status[0]!.split('\t')).not.toContain('bad');
    expect(status).toContain('the scheduler counts external URLs new to each site (--reward urls)');
    expect((await beebot(['hosts'], { db })).stdout.split('\n')[0]).toBe('host\tdomain\tsites\tpairs\tpages\ttarget_site');
  });

  it('help names no source file and no jargon', async () => {
    const db = newDb();
    const { program } = await import('../../src/cli/main.js');
    const all = (c: import('commander').Command): string[][] => c.commands.flatMap((s) => [[s.name()], ...all(s).map((p) => [s.name(), ...p])]);
    const lines = all(await program());
    const helps = await Promise.all(lines.map((args) => beebot([...args, '--help'], { db })));
    helps.forEach((h, i) => {
      expect(h.code, lines[i]!.join(' ')).toBe(0);
      expect(h.stdout, lines[i]!.join(' ')).not.toMatch(/\b[\w-]+\.(ts|py)\b|scripts\/|lower bound|reward: urls/);
    });
  }, 120_000);
});
