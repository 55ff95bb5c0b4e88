// A hand-made web of four sites that link each other and share outside hosts, with its links
// written down as data: tests count interlinks and co-links from LINKS by plain loops and compare.
import { expect } from 'vitest';
import { beebot } from './cli.js';
import { servePages } from './page-server.js';

export const LINKED_SITES = [
  { host: 'a.test', short: 'A', group: 'university' },
  { host: 'b.test', short: 'B', group: 'university' },
  { host: 'c.test', short: 'C', group: 'institute' },
  { host: 'd.test', short: 'D', group: 'institute' },
] as const;

/** Per site, per page: the links it carries ('PORT' stands for the server's port; '/x' is in-site). */
export const LINKS: Record<string, Record<string, string[]>> = {
  'a.test': {
    '/': ['http://b.test:PORT/', 'http://b.test:PORT/x.html', 'http://c.test:PORT/', 'https://out1.example/1', 'https://out2.example/1', '/more.html'],
    '/more.html': ['http://b.test:PORT/', 'https://out1.example/2', 'https://out3.example/1'],
  },
  'b.test': {
    '/': ['http://a.test:PORT/', 'https://out1.example/1', 'https://out2.example/2', '/x.html'],
    '/x.html': ['https://out3.example/1'],
  },
  'c.test': { '/': ['https://out1.example/1', 'https://out4.example/1'] },
  'd.test': { '/': ['https://out5.example/1'] },
};

/** Serve LINKS, seed its four sites (with groups) into `db` and crawl them through the real CLI. */
export async function crawlLinkedWeb(db: string): Promise<{ close: () => Promise<void> }> {
  const pages: Record<string, string> = {};
  const web = await servePages(pages);
  const port = String(web.port);
  for (const [host, byPath] of Object.entries(LINKS)) {
    for (const [path, links] of Object.entries(byPath)) {
      pages[host + path] = `<!DOCTYPE html><html><head><title>${host}${path}</title></head><body>${links
        .map((l) => `<a href="${l.replace('PORT', port)}">${l}</a>`)
        .join('\n')}</body></html>`;
    }
  }
  for (const s of LINKED_SITES) {
    const r = await beebot(['seeds', 'add', `http://${s.host}:${port}/`, '--short', s.short, '--group', s.group], { db });
    expect(r.code, r.stderr).toBe(0);
  }
  const resolve = LINKED_SITES.flatMap((s) => ['--resolve', `${s.host}:${port}:127.0.0.1`]);
  const r = await beebot(['crawl', '--delay', '0', ...resolve], { db });
  expect(r.code, r.stderr).toBe(0);
  return web;
}

const siteOf = (url: string): string | null => {
  if (url.startsWith('/')) return null;
  const host = new URL(url.replace('PORT', '80')).hostname;
  return LINKED_SITES.some((s) => s.host === host) ? host : null;
};

/** Interlinks counted from LINKS: "source target" → distinct URLs, link rows, pages. */
export function expectedInterlinks(): Map<string, { urls: number; links: number; pages: number }> {
  const out = new Map<string, { urls: Set<string>; links: number; pages: Set<string> }>();
  for (const [host, byPath] of Object.entries(LINKS)) {
    for (const [path, links] of Object.entries(byPath)) {
      for (const l of new Set(links)) {
        const target = siteOf(l);
        if (target === null || target === host) continue;
        const k = `${host} ${target}`;
        const x = out.get(k) ?? { urls: new Set(), links: 0, pages: new Set() };
        x.urls.add(l);
        x.links++;
        x.pages.add(path);
        out.set(k, x);
      }
    }
  }
  return new Map([...out].map(([k, x]) => [k, { urls: x.urls.size, links: x.links, pages: x.pages.size }]));
}

/** Outside hosts each site links, from LINKS. */
export function outsideHostsBySite(): Map<string, Set<string>> {
  return new Map(
    Object.entries(LINKS).map(([host, byPath]) => [
      host,
      new Set(Object.values(byPath).flat().filter((l) => !l.startsWith('/') && siteOf(l) === null).map((l) => new URL(l.replace('PORT', '80')).hostname)),
    ]),
  );
}

/** Co-links from LINKS by a double loop: "a b" → outside hosts both link to (pairs sharing none left out). */
export function expectedColinks(): Map<string, number> {
  const by = outsideHostsBySite();
  const hosts = LINKED_SITES.map((s) => s.host);
  const out = new Map<string, number>();
  for (let i = 0; i < hosts.length; i++) for (let j = i + 1; j < hosts.length; j++) {
    const n = [...by.get(hosts[i]!)!].filter((h) => by.get(hosts[j]!)!.has(h)).length;
    if (n > 0) out.set(`${hosts[i]} ${hosts[j]}`, n);
  }
  return out;
}
