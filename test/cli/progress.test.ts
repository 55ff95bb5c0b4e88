// The crawl's live display (a pure layout, tested directly), its plain piped form, and
// the live form on a real pseudo-terminal (util-linux `script`).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duration, outcome, progressLines, progressReporter, RateWindow, shorten, type ProgressState } from '../../src/cli/progress.js';
import { BIN, beebot } from '../helpers/cli.js';
import { withFixtureWeb } from '../helpers/fixture-run.js';

const state: ProgressState = {
  used: 672, budget: 2000, rate: 12.34, distinctUrls: 1234, distinctHosts: 321,
  sites: { crawling: 12, exhausted: 5, waiting: 0, capped: 0, unavailable: 3 },
  who: 'spbu', level: 4, what: '+1 ext', url: 'https://www.spbu.ru/news/2024/very/long/path/to/a/page.html?with=query',
};

describe('progressLines', () => {
  it('shows budget with a bar and %, pages/s, ETA, distinct URLs and hosts, site states and the URL', () => {
    const [a, b] = progressLines(state, 200);
    expect(a).toBe('[#######.............] 672/2000 33%  12.3 pages/s  ETA 1m48s  external: 1234 URLs, 321 hosts');
    expect(b).toBe(`sites 12 crawling, 5 exhausted, 3 n/a | spbu L4 +1 ext ${state.url}`);
  });

  it("counts a site at max-pages-per-site as 'capped', status's word, not 'exhausted'", () => {
    const [, b] = progressLines({ ...state, sites: { crawling: 1, exhausted: 2, waiting: 0, capped: 4, unavailable: 0 } }, 200);
    expect(b).toMatch(/^sites 1 crawling, 2 exhausted, 4 capped, 0 n\/a \| /);
  });

  it("counts a site whose pages wait for a failing host as 'waiting', not 'exhausted'", () => {
    const [, b] = progressLines({ ...state, sites: { crawling: 1, exhausted: 2, waiting: 1, capped: 0, unavailable: 0 } }, 200);
    expect(b).toMatch(/^sites 1 crawling, 2 exhausted, 1 waiting, 0 n\/a \| /);
  });

  it('fits the width, shortening the URL in the middle', () => {
    for (const width of [40, 80, 120]) {
      const lines = progressLines(state, width);
      for (const l of lines) expect(l.length, `${width}: ${l}`).toBeLessThanOrEqual(width);
    }
    const [, b] = progressLines(state, 100);
    expect(b).toMatch(/^sites 12 crawling.*https:\/\/www\.spbu\.ru\/.*….*query$/);
  });

  it("shows a server's control characters (a C1 CSI from a Location header in the error, an escape in a short name) as '?'", () => {
    // what a redirect to 'http://[\x9b31m' (bytes read as latin1) leaves as the page's error
    const [, b] = progressLines({ ...state, who: 'ev\x1b]0;t\x07', what: 'error: bad-redirect: http://[\u009b31m\u202e' }, 200);
    expect(b).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(b).toBe(`sites 12 crawling, 5 exhausted, 3 n/a | ev?]0;t? L4 error: bad-redirect: http://[?31m? ${state.url}`);
  });

  it('without a budget or a rate yet', () => {
    const [a] = progressLines({ ...state, budget: null, rate: null }, 200);
    expect(a).toBe('672 pages (no budget)  - pages/s  external: 1234 URLs, 321 hosts');
    expect(progressLines({ ...state, rate: null }, 200)[0]).toContain('ETA -');
  });

  it('helpers: duration, shorten, the rate over a sliding window, the outcome words', () => {
    expect([duration(42), duration(185), duration(3720), duration(-1)]).toEqual(['42s', '3m05s', '1h02m', '0s']);
    expect(shorten('abcdefghij', 5)).toBe('ab…ij');
    expect(shorten('abc', 5)).toBe('abc');
    const r = new RateWindow(10_000);
    expect(r.rate()).toBeNull();
    r.add(0, 0);
    r.add(1000, 10);
    expect(r.rate()).toBe(10);
    r.add(20_000, 30); // the first samples fall out of the window
    r.add(21_000, 40);
    expect(r.rate()).toBe(10);
    expect(outcome({ status: 'done', reward: 3, error: null })).toBe('+3 ext');
    expect(outcome({ status: 'error', reward: 0, error: 'HTTP 404' })).toBe('error: HTTP 404');
    expect(outcome({ status: 'not-html', reward: 0, error: null })).toBe('not-html');
  });
});

describe('a wait outside the crawl (another process holds the database)', () => {
  const notice = 'waiting for c.db: another process is writing to it; gives up at 12:00:30';
  const stream = (isTTY: boolean) => {
    const s = { isTTY, columns: 100, text: '', write: (t: string) => ((s.text += t), true) };
    return s;
  };
  const start = { totalPulls: 0, distinctUrls: 0, distinctHosts: 0, siteCounts: () => state.sites };

  it('live: takes the second line until the next page; piped: a line of its own', () => {
    const env = { CI: process.env.CI, NO_COLOR: process.env.NO_COLOR, TERM: process.env.TERM };
    delete process.env.CI;
    delete process.env.NO_COLOR;
    process.env.TERM = 'xterm';
    try {
      const tty = stream(true);
      const live = progressReporter({ budget: 10, out: tty as unknown as NodeJS.WriteStream });
      live.onStart(start);
      live.onNotice(notice);
      expect(tty.text.endsWith(`\x1b[K${notice}`)).toBe(true); // in the page's place, under the first line
      expect(tty.text).not.toContain(`${notice}\n`);
    } finally {
      for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
    const pipe = stream(false);
    progressReporter({ budget: 10, out: pipe as unknown as NodeJS.WriteStream }).onNotice(notice);
    expect(pipe.text).toBe(`${notice}\n`);
  });
});

describe('crawl output', () => {
  const fx = withFixtureWeb();

  it('piped: one tab-separated line per page on stderr (pulls, site, level, status, outcome, url), in pull order', async () => {
    const db = join(fx.tmp.dir, 'piped.db');
    await beebot(['seeds', 'add', fx.web.url('tiny.test'), '--short', 'tiny'], { db });
    const r = await beebot(['crawl', '--delay', '0', ...fx.web.resolveArgs()], { db });
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines.length).toBe(3);
    expect(lines.map((l) => l.split('\t').length)).toEqual([6, 6, 6]);
    expect(lines.map((l) => l.split('\t')[0])).toEqual(['1', '2', '3']);
    expect(lines[0]).toBe(`1\ttiny\t0\t200\t+0 ext\t${fx.web.url('tiny.test')}`);
    expect(r.stderr).not.toContain('\x1b');
  });

  it('on a terminal: two lines redrawn in place, then the summary', async () => {
    const db = join(fx.tmp.dir, 'tty.db');
    await beebot(['seeds', 'add', fx.web.url('thin.test')], { db });
    const cmd = [process.execPath, BIN, '--db', db, 'crawl', '--delay', '0', '--budget', '20', ...fx.web.resolveArgs()].map((a) => `'${a}'`).join(' ');
    const env = { ...process.env, TERM: 'xterm', COLUMNS: '100' } as Record<string, string | undefined>;
    delete env.CI;
    delete env.NO_COLOR;
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`script exited ${code}: ${text}`))));
    });
    expect(out).toMatch(/\[[#.]{20}\] \d+\/20 \d+%/);
    expect(out).toMatch(/external: \d+ URLs, \d+ hosts/);
    expect(out).toMatch(/sites 1 crawling, 0 exhausted, 0 n\/a \| site \d+ L\d/);
    expect(out).toContain('\x1b[K'); // redrawn in place
    expect(out).not.toMatch(/^\d+\tsite/m); // no per-page lines
    expect(out).toMatch(/stopped: budget reached/);
  });

  it('CI set on a terminal: plain lines, nothing animated', async () => {
    const db = join(fx.tmp.dir, 'ci.db');
    await beebot(['seeds', 'add', fx.web.url('tiny.test')], { db });
    const cmd = [process.execPath, BIN, '--db', db, 'crawl', '--delay', '0', ...fx.web.resolveArgs()].map((a) => `'${a}'`).join(' ');
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env: { ...process.env, TERM: 'xterm', CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.on('error', reject);
      child.on('close', () => resolve(text));
    });
    expect(out).not.toContain('\x1b[K');
    expect(out).toMatch(/^1\tsite \d+\t0\t200\t/m);
  });
});
