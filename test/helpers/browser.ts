// A real headless Chromium for the tests, on any machine: the system's when one is on the PATH
// (Debian's chromium), else the build @sparticuz/chromium ships inside its npm package, so
// `npm ci && npm test` needs no browser installed by hand. Driven by puppeteer-core: the npm build
// hangs on `--dump-dom` (it loads the page and never prints it), and the protocol also lets a test
// see every request a page makes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Page } from 'puppeteer-core';

function systemChromium(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser || command -v google-chrome'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * The npm build, unpacked once per version and user. chromium.executablePath() unpacks into
 * os.tmpdir() and returns any /tmp/chromium it finds, whatever version put it there (a stale one
 * after an upgrade, a half-written one after an interrupted run): unpack into a fresh directory
 * instead, then rename it into place in one step.
 */
async function npmChromium(): Promise<string> {
  const pkg = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', '..', 'package.json');
  const { version } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string };
  const dir = join(tmpdir(), `beebot-sparticuz-chromium-${version}-${process.getuid?.() ?? 0}`);
  if (!existsSync(join(dir, 'chromium'))) {
    const part = `${dir}.part-${process.pid}`;
    rmSync(part, { recursive: true, force: true });
    mkdirSync(part, { recursive: true });
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = part; // read by os.tmpdir() on each call
    try {
      await chromium.executablePath();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    try {
      renameSync(part, dir);
    } catch {
      rmSync(part, { recursive: true, force: true }); // another run unpacked it first
    }
  }
  return join(dir, 'chromium');
}

export interface Rendered {
  /** the DOM after the page's script ran, serialized */
  html: string;
  /** URLs the page asked for besides itself (aborted: a report must need no network) */
  requests: string[];
  /** which browser drew it */
  browser: string;
  /** the page's laid-out width against the window's (1100 px): wider means a horizontal scroll */
  width: { page: number; window: number };
  /** what `probe` (an expression run in the page after it loaded) gave, if one was asked */
  probed?: unknown;
  /** what `drive` (mouse, keyboard, screenshots through puppeteer) gave, if given */
  driven?: unknown;
  /** console errors and uncaught exceptions of the page */
  errors: string[];
}

/** Open a local HTML file in headless Chromium, let its script run, return the DOM. */
export async function renderFile(file: string, probe?: string, drive?: (page: Page) => Promise<unknown>): Promise<Rendered> {
  const system = systemChromium();
  const executablePath = system ?? (await npmChromium());
  // puppeteer launches each browser with a fresh temporary --user-data-dir and removes it on close;
  // anything that gets past the request interception below goes to a dead proxy.
  const flags = [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--window-size=1100,900', '--proxy-server=127.0.0.1:9',
  ];
  const browser = await puppeteer.launch({ executablePath, headless: 'shell', args: system ? flags : [...chromium.args, ...flags], timeout: 50_000 });
  try {
    const page = await browser.newPage();
    const url = pathToFileURL(file).href;
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('pageerror', (e) => void errors.push(String(e)));
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      if (r.url() === url) return void r.continue();
      requests.push(r.url());
      void r.abort();
    });
    await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    // A string: the tests compile without the DOM's types.
    const width = (await page.evaluate('({ page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth })')) as Rendered['width'];
    const probed = probe === undefined ? undefined : await page.evaluate(probe);
    const driven = drive === undefined ? undefined : await drive(page);
    return { html: await page.content(), requests, browser: `${executablePath} ${await browser.version()}`, width, probed, driven, errors };
  } finally {
    await browser.close();
  }
}
