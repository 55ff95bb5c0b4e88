// A real headless Chromium for the tests, on any machine: the system's when one is on the PATH
// (Debian's chromium), else the build @sparticuz/chromium ships inside its npm package (unpacked
// to /tmp on first use), so `npm ci && npm test` needs no browser installed by hand. Driven by
// puppeteer-core: the npm build hangs on `--dump-dom`, and the protocol also lets a test see every
// request a page makes.
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import chromium from '@sparticuz/chromium';
import puppeteer from 'puppeteer-core';

function systemChromium(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser || command -v google-chrome'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export interface Rendered {
  /** the DOM after the page's script ran, serialized */
  html: string;
  /** URLs the page asked for besides itself (aborted: a report must need no network) */
  requests: string[];
  /** which browser drew it */
  browser: string;
}

/** Open a local HTML file in headless Chromium, let its script run, return the DOM. */
export async function renderFile(file: string): Promise<Rendered> {
  const system = systemChromium();
  const executablePath = system ?? (await chromium.executablePath());
  const flags = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--window-size=1100,900'];
  const browser = await puppeteer.launch({ executablePath, headless: 'shell', args: system ? flags : [...chromium.args, ...flags], timeout: 50_000 });
  try {
    const page = await browser.newPage();
    const url = pathToFileURL(file).href;
    const requests: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      if (r.url() === url) return void r.continue();
      requests.push(r.url());
      void r.abort();
    });
    await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    return { html: await page.content(), requests, browser: `${system ?? executablePath} ${await browser.version()}` };
  } finally {
    await browser.close();
  }
}
