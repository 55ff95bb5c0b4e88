/**
 * The benchmark's generated web (pure): every page is a function of (web config, host, path,
 * port), drawn from a seeded PRNG, so nothing is stored and every run serves the same bytes.
 * Holding 20 × 5,000 pages of ~90 KB would take 9 GB, hence pages are built per request from
 * pre-made text pieces and seeded link lists (about 0.1 ms a page).
 *
 * Hosts (the port is the server's, appended in absolute links):
 * - `site{n}.bench` (n < sites): the comparison web, `pagesPerSite` pages each, 30–150 KB,
 *   50–300 links, 5–25 % of them external (other target sites among them), a few bad ones.
 * - `solo.bench`: one site of `soloPages` such pages, for the single-site comparison with wget.
 * - `wide{n}-k{K}.bench`: the scale web. `/` links K wide pages `/w/k`; each wide page links
 *   `fanout` new leaves `/l/k/j`; a leaf is an ordinary page whose internal links point at other
 *   leaves (already stored) plus a few new `/n/…` pages. Fetching the root and the K wide pages of
 *   every site stores sites × K × fanout URLs; the leaves then measure the cost per page at that size.
 */
import { mulberry32 } from '../src/schedule/sites/random.js';

export interface WebConfig {
  sites: number;
  pagesPerSite: number;
  soloPages: number;
  /** Links on a wide page of the scale web. */
  fanout: number;
  seed: number;
}

export const defaultWeb: WebConfig = { sites: 20, pagesPerSite: 5000, soloPages: 2000, fanout: 1000, seed: 1 };

export type Site =
  | { kind: 'normal'; host: string; index: number; pages: number }
  | { kind: 'wide'; host: string; index: number; wide: number };

export interface Page {
  status: number;
  body: Buffer;
}

// ---------------------------------------------------------------------------------------------
// Seeded randomness: mulberry32 seeded by an integer hash of (web seed, site, page, salt).

export function hash32(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) {
    h = Math.imul(h ^ (x | 0), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
  }
  return h >>> 0;
}

export const rngOf = mulberry32;

const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

// ---------------------------------------------------------------------------------------------
// Text pieces, made once. Paragraphs carry a few non-ASCII words so decoders do real UTF-8 work,
// as on real pages; the words of links and titles are ASCII so that building a page stays cheap
// (one-byte strings) and the server is never the bottleneck.

const SYL = ['ka', 'lo', 'mi', 'ne', 'ra', 'to', 'su', 'vi', 'de', 'po', 'li', 'an', 'er', 'in', 'or', 'us', 'ta', 'be', 'co', 'fu'];
const VOCAB: string[] = (() => {
  const r = rngOf(12345);
  const words = new Set<string>();
  while (words.size < 600) {
    let w = '';
    for (let n = int(r, 1, 4); n > 0; n--) w += SYL[int(r, 0, SYL.length - 1)];
    words.add(w);
  }
  return [...words];
})();
const UNICODE = ['café', 'naïve', 'über', 'наука', 'университет', 'données'];
const word = (i: number) => VOCAB[i % VOCAB.length]!;
function words(r: () => number, n: number): string {
  let s = VOCAB[Math.floor(r() * VOCAB.length)]!;
  for (let i = 1; i < n; i++) s += ' ' + VOCAB[Math.floor(r() * VOCAB.length)]!;
  return s;
}

const PARAGRAPHS: Buffer[] = (() => {
  const r = rngOf(777);
  const text = () => Array.from({ length: int(r, 80, 160) }, () => (r() < 0.02 ? UNICODE[int(r, 0, UNICODE.length - 1)] : VOCAB[int(r, 0, VOCAB.length - 1)]));
  return Array.from({ length: 256 }, () => Buffer.from(`<p>${text().join(' ')}.</p>\n`));
})();

const SECTIONS = ['news', 'research', 'about', 'people', 'events', 'library', 'study', 'archive'];
const STYLE = Buffer.from(`<style>\n${Array.from({ length: 60 }, (_, i) => `.c${i} { margin: ${i}px; padding: ${i % 7}px; color: #${(i * 99991).toString(16).slice(0, 6).padEnd(6, '0')}; }`).join('\n')}\n</style>\n`);
// Inline script text holding a tag-like string: parsers must not take it for a link.
const SCRIPT = Buffer.from(`<script>\nwindow.dataLayer = window.dataLayer || [];\nfunction gtag(){dataLayer.push(arguments);}\n${Array.from({ length: 40 }, (_, i) => `var v${i} = '<a href="/not-a-link-${i}">' + ${i};`).join('\n')}\n</script>\n`);
const TLDS = ['com', 'org', 'net', 'ru', 'de', 'edu', 'io', 'info'];

// ---------------------------------------------------------------------------------------------
// Addresses.

export const siteHost = (n: number) => `site${n}.bench`;
export const wideHost = (n: number, k: number) => `wide${n}-k${k}.bench`;
export const SOLO_HOST = 'solo.bench';

/** The path of page `id` of a normal site: `/` for 0, else `/section/slug-id.html`. */
export function pagePath(id: number): string {
  if (id === 0) return '/';
  return `/${SECTIONS[hash32(id, 1) % SECTIONS.length]}/${word(id * 7)}-${word(id * 13 + 5)}-${id}.html`;
}

function pageIdOf(path: string): number | null {
  if (path === '/') return 0;
  const m = /^\/[a-z]+\/[^/]+-(\d+)\.html$/.exec(path);
  if (!m) return null;
  const id = Number(m[1]);
  return pagePath(id) === path ? id : null;
}

export function siteOf(hostHeader: string, cfg: WebConfig): Site | null {
  const host = hostHeader.replace(/:\d+$/, '').toLowerCase();
  if (host === SOLO_HOST) return { kind: 'normal', host, index: 10_000, pages: cfg.soloPages };
  let m = /^site(\d+)\.bench$/.exec(host);
  if (m && Number(m[1]) < cfg.sites) return { kind: 'normal', host, index: Number(m[1]), pages: cfg.pagesPerSite };
  m = /^wide(\d+)-k(\d+)\.bench$/.exec(host);
  if (m) return { kind: 'wide', host, index: Number(m[1]), wide: Number(m[2]) };
  return null;
}

// ---------------------------------------------------------------------------------------------
// Pages.

const NOT_FOUND: Page = { status: 404, body: Buffer.from('<!DOCTYPE html><title>Not found</title><h1>Not found</h1>\n') };

/** The page at hostHeader + path (query ignored), or a 404 (robots.txt too: allow all). */
export function renderPage(cfg: WebConfig, hostHeader: string, rawPath: string, port: number): Page {
  const site = siteOf(hostHeader, cfg);
  const path = rawPath.replace(/[?#].*$/, '');
  if (!site) return NOT_FOUND;
  const origin = `http://${site.host}:${port}`;
  if (site.kind === 'normal') {
    const id = pageIdOf(path);
    if (id === null || id >= site.pages) return NOT_FOUND;
    const r = rngOf(hash32(cfg.seed, site.index, id));
    const near = (x: number) => ((x % site.pages) + site.pages) % site.pages;
    // Half the internal links stay near the page (its section), half go anywhere in the site.
    const internal = () => pagePath(r() < 0.5 ? near(id + int(r, -40, 40)) : int(r, 0, site.pages - 1));
    return ok(article(r, cfg, site, origin, path, port, internal, (i) => pagePath(1 + (i % (site.pages - 1)))));
  }
  const { wide } = site;
  const leaves = wide * cfg.fanout;
  const leafPath = (n: number) => `/l/${Math.floor(n / cfg.fanout)}/${n % cfg.fanout}`;
  if (path === '/') {
    const r = rngOf(hash32(cfg.seed, 50_000 + site.index, wide));
    let k = 0;
    return ok(article(r, cfg, site, origin, path, port, () => `/w/${k++ % wide}`, (i) => `/w/${i % wide}`, wide));
  }
  let m = /^\/w\/(\d+)$/.exec(path);
  if (m && Number(m[1]) < wide) {
    const k = Number(m[1]);
    const items = Array.from({ length: cfg.fanout }, (_, j) => `<li><a href="/l/${k}/${j}">${word(k * 31 + j)}</a></li>\n`);
    return ok(`<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Index ${k}</title></head><body>\n<h1>Index ${k}</h1>\n<ul>\n${items.join('')}</ul>\n</body></html>\n`);
  }
  m = /^\/l\/(\d+)\/(\d+)$/.exec(path) ?? /^\/n\/(\d+)\/(\d+)\/(\d+)$/.exec(path);
  if (m && Number(m[1]) < wide && Number(m[2]) < cfg.fanout) {
    const [k, j, extra] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    const r = rngOf(hash32(cfg.seed, 60_000 + site.index, k, j, extra + 1));
    let fresh = 0;
    // Mostly links to leaves already stored (the seen-set check), some new URLs (frontier growth).
    const internal = () => (r() < 0.06 ? `/n/${k}/${j}/${fresh++}` : leafPath(int(r, 0, leaves - 1)));
    return ok(article(r, cfg, site, origin, path, port, internal, (i) => leafPath((i * 997) % leaves)));
  }
  return NOT_FOUND;
}

const ok = (body: string | Buffer): Page => ({ status: 200, body: typeof body === 'string' ? Buffer.from(body) : body });

/**
 * An article-like page: head with inline style and script, a navigation bar, text with links
 * inline and in lists, a footer with the same external links on every page. Sizes 30–150 KB,
 * 50–300 links, 5–25 % external (a fifth of those to other sites of this web), 0–2 bad links.
 */
function article(
  r: () => number, cfg: WebConfig, site: Site, origin: string, path: string, port: number,
  internal: () => string, navPath: (i: number) => string, internalMin = 0,
): Buffer {
  // 50–300 links with the 18 that every page has (navigation, breadcrumb, footer).
  const total = Math.max(int(r, 32, 282), internalMin + 10);
  const nExternal = Math.min(total - internalMin, Math.round(total * (0.05 + 0.2 * r())));
  const target = int(r, 30_000, 150_000);
  const links: string[] = [];
  const up = '../'.repeat(path.split('/').length - 2) || './';
  for (let i = 0; i < total - nExternal; i++) {
    const p = internal();
    // Spellings as on real sites: root-relative, document-relative, absolute.
    const u = r();
    const href = u < 0.45 ? p : u < 0.8 ? up + p.slice(1) : `${origin}${p}`;
    links.push(a(href, words(r, int(r, 1, 5))));
  }
  for (let i = 0; i < nExternal; i++) links.push(a(externalUrl(r, cfg, site, port), words(r, int(r, 1, 4)), r() < 0.3 ? ' rel="nofollow"' : ''));
  for (let i = int(r, 0, 2); i > 0; i--) {
    const bad = [`mailto:${word(int(r, 0, 500))}@${site.host}`, 'javascript:void(0)', `tel:+1555${int(r, 1000, 9999)}`][int(r, 0, 2)]!;
    links.push(a(bad, 'contact'));
  }
  shuffle(r, links);

  // Bytes, not one string: the text pieces are UTF-8 already, and joining two-byte JS strings of
  // 90 KB per page made the server, not the crawler, the bottleneck.
  const out: (string | Buffer)[] = [
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>${words(r, 4)} | ${site.host}</title>\n`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="description" content="${words(r, 12)}">\n`,
    STYLE, SCRIPT, '</head>\n<body class="page">\n<header><nav class="main"><ul>\n',
  ];
  out.push(`<li><a href="/">Home</a></li>\n`);
  for (let i = 0; i < 12; i++) out.push(`<li><a href="${navPath(i)}">${word(i * 3 + 1)}</a></li>\n`);
  out.push(`</ul></nav></header>\n<main>\n<h1>${words(r, 6)}</h1>\n<div class="crumbs"><a href="/">Home</a> &gt; ${escapeHtml(path)}</div>\n`);
  let size = out.reduce((n, s) => n + s.length, 0) + 1500; // + the footer
  size += links.reduce((n, s) => n + s.length + 10, 0);
  // Links come in groups (a paragraph with inline links, or a list), with text in between.
  const groups: string[][] = [];
  for (let i = 0; i < links.length; ) {
    const n = int(r, 3, 15);
    groups.push(links.slice(i, i + n));
    i += n;
  }
  let fillerLeft = Math.max(0, target - size);
  for (let g = 0; g < groups.length; g++) {
    const share = Math.floor(fillerLeft / (groups.length - g));
    let used = 0;
    while (used < share) {
      const p = PARAGRAPHS[int(r, 0, PARAGRAPHS.length - 1)]!;
      out.push(p);
      used += p.length;
    }
    fillerLeft -= used;
    const group = groups[g]!;
    if (r() < 0.5) out.push(`<ul class="c${g % 60}">\n${group.map((l) => `<li>${l}</li>\n`).join('')}</ul>\n`);
    else out.push(`<p>${group.map((l) => `${words(r, 3)} ${l}`).join(', ')}.</p>\n`);
  }
  out.push(`</main>\n<footer><div class="social">\n`);
  for (const net of ['twitter.com', 'www.facebook.com', 'www.youtube.com', 'vk.com']) out.push(`<a href="https://${net}/${site.host.split('.')[0]}">${net}</a>\n`);
  out.push(`</div><p>&copy; 2024 ${site.host}. ${words(r, 20)}</p>\n</footer>\n</body></html>\n`);
  return bytesOf(out);
}

/** Runs of strings (ASCII) encoded at once: one Buffer.from per run, not per piece. */
function bytesOf(parts: (string | Buffer)[]): Buffer {
  const out: Buffer[] = [];
  let run = '';
  for (const x of parts) {
    if (typeof x === 'string') run += x;
    else {
      if (run) out.push(Buffer.from(run, 'latin1'));
      run = '';
      out.push(x);
    }
  }
  if (run) out.push(Buffer.from(run, 'latin1'));
  return Buffer.concat(out);
}

/** Another site of this web (a fifth) or one of 3,000 outside hosts, popular ones more often. */
function externalUrl(r: () => number, cfg: WebConfig, site: Site, port: number): string {
  if (site.kind === 'normal' && cfg.sites > 1 && r() < 0.2) {
    let other = int(r, 0, cfg.sites - 2);
    if (other >= site.index) other++;
    return `http://${siteHost(other)}:${port}${pagePath(int(r, 0, cfg.pagesPerSite - 1))}`;
  }
  const h = Math.floor(3000 * r() ** 2.5);
  const host = `${h % 3 === 0 ? 'www.' : ''}${word(h * 11)}${h}.${TLDS[h % TLDS.length]}`;
  const scheme = h % 4 === 0 ? 'http' : 'https';
  const u = r();
  const path = u < 0.3 ? '/' : u < 0.6 ? `/${word(int(r, 0, 600))}/` : u < 0.9 ? `/${word(int(r, 0, 600))}/${int(r, 1, 9999)}.html` : `/?ref=${site.host}&amp;utm_source=${word(int(r, 0, 600))}`;
  return `${scheme}://${host}${path}`;
}

function a(href: string, text: string, attrs = ''): string {
  return `<a href="${href}"${attrs}>${text}</a>`;
}

function shuffle<T>(r: () => number, xs: T[]): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
