import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { PageStatus } from '../pull/pull-record.js';

/**
 * A web as beebot sees it, kept to replay crawls offline (replay.ts): every page a crawl of the
 * sites may pull up to the graph's level cap, what pulling it gives (its status, its distinct
 * external URLs, its distinct internal links with their cues) and its breadth-first level.
 * Built by graph-build.ts from beebot's own fetch and page code, so a replay sees what a live
 * crawl sees.
 */
export interface GraphLink {
  /** the linked page (index in its site's pages) */
  to: number;
  /** the link's anchor text */
  anchor: string;
  /** its cues as a topic-focused crawl reads them (src/schedule/links/cues.ts: URL, anchor, text before it, title, tag path) */
  cues: string;
  /** its spelling, when not the page's (another scheme, www.): a page queued by this link is fetched so */
  url?: string;
  /** robots.txt of that spelling's origin keeps it from being fetched */
  robots?: true;
}

export interface GraphPage {
  /** the spelling a breadth-first crawl fetches */
  url: string;
  /** breadth-first level (a redirect's target sits at its source's level, as the crawl stores it) */
  level: number;
  /** what a pull of it stores: for an in-site redirect, the status of the page it leads to */
  status: PageStatus;
  http: number | null;
  /** robots.txt keeps it from being fetched (denied, or unreadable): the crawl stores it skipped, no pull */
  robots?: true;
  /** an in-site redirect: the page whose content the pull reads (its own ext and links are empty) */
  target?: number;
  title?: string | null;
  /** distinct external URLs (indices into WebGraph.urls), page order */
  ext: number[];
  /** distinct internal links to pages of the graph (stored-only links, files and traps, left out), page order */
  links: GraphLink[];
}

export interface SiteGraph {
  host: string;
  group: string | null;
  /** the start page is pages[0] */
  pages: GraphPage[];
}

export interface WebGraph {
  /** how it was made */
  source: string;
  /** pages deeper than this are not in the graph */
  maxLevel: number;
  /** external URL keys (src/url/url.ts urlKey), and the outside host of each */
  urls: string[];
  urlHost: number[];
  hosts: string[];
  sites: SiteGraph[];
}

/** The page whose content a pull of `i` reads (itself, or its in-site redirect's target). */
export const contentOf = (site: SiteGraph, i: number): number => site.pages[i]!.target ?? i;

/** A page that is an HTML page of its own (what limit.py counts as a page). */
export const isHtmlPage = (p: GraphPage): boolean => p.status === 'done' && p.target === undefined;

export function saveGraph(path: string, g: WebGraph): void {
  const json = JSON.stringify(g);
  writeFileSync(path, path.endsWith('.gz') ? gzipSync(json, { level: 6 }) : json);
}

export function loadGraph(path: string): WebGraph {
  const raw = readFileSync(path);
  const g = JSON.parse((path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')) as WebGraph;
  if (!Array.isArray(g.sites) || !Array.isArray(g.urls)) throw new Error(`${path}: not a page graph`);
  return g;
}

/** The graph restricted to some of its sites (the external URL tables stay whole). */
export const subGraph = (g: WebGraph, keep: (s: SiteGraph, i: number) => boolean): WebGraph => ({ ...g, sites: g.sites.filter(keep) });

/**
 * Two graphs' sites in one web (a barren set mixed into another): the second's external URLs and
 * hosts renumbered into the first's tables, so a URL both link to counts once.
 */
export function mergeGraphs(a: WebGraph, b: WebGraph): WebGraph {
  const urls = [...a.urls];
  const urlHost = [...a.urlHost];
  const hosts = [...a.hosts];
  const urlIds = new Map(urls.map((u, i) => [u, i]));
  const hostIds = new Map(hosts.map((h, i) => [h, i]));
  const hostOf = (h: string) => hostIds.get(h) ?? (hostIds.set(h, hosts.length), hosts.push(h), hosts.length - 1);
  const urlOf = (i: number) => {
    const u = b.urls[i]!;
    let id = urlIds.get(u);
    if (id === undefined) {
      urlIds.set(u, (id = urls.length));
      urls.push(u);
      urlHost.push(hostOf(b.hosts[b.urlHost[i]!]!));
    }
    return id;
  };
  const sites = b.sites.map((s) => ({ ...s, pages: s.pages.map((p) => ({ ...p, ext: p.ext.map(urlOf) })) }));
  return { source: `${a.source} + ${b.source}`, maxLevel: Math.min(a.maxLevel, b.maxLevel), urls, urlHost, hosts, sites: [...a.sites, ...sites] };
}
