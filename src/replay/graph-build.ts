import type { PullResult } from '../pull/pull-record.js';
import { urlKey } from '../url/url.js';
import type { GraphLink, GraphPage, SiteGraph, WebGraph } from './web-graph.js';

export interface GraphSeed {
  host: string;
  url: string;
  group: string | null;
}

/**
 * What a pull of a URL of site `site` stores (the crawl's own fetch and page code give it:
 * scripts/harvest-graph.ts), or 'robots' when robots.txt keeps the crawl from fetching it.
 */
export type ReadPage = (url: string, site: number) => Promise<Pick<PullResult, 'status' | 'httpStatus' | 'final' | 'links' | 'title'> | 'robots'>;

export interface BuildOptions {
  maxLevel: number;
  /** reads at once */
  concurrency: number;
  source: string;
  /** robots.txt's word on a spelling of a page other than the one read (another origin may deny it) */
  denied?: (url: string, site: number) => Promise<boolean>;
  onSite?: (host: string, pages: number) => void;
}

type Read = Exclude<Awaited<ReturnType<ReadPage>>, 'robots'>;
const NOTHING: Read = { status: 'error', httpStatus: null, final: null, links: { internal: [], external: [], bad: [] }, title: null };

interface Node {
  key: string;
  url: string;
  read: Read | null;
  robots?: boolean;
  /** an in-site redirect's target */
  target?: number;
  /** the node read through another's redirect */
  via?: boolean;
}

/**
 * Every page a crawl of the sites can pull up to maxLevel, read once each, in rounds: read what
 * is within reach, work out the breadth-first levels (a redirect's target at its source's level,
 * as the store keeps it), read what came within reach, until nothing new is. The pages read
 * through an in-site redirect are not read again. Deterministic for the same reads.
 */
export async function buildGraph(seeds: readonly GraphSeed[], read: ReadPage, o: BuildOptions): Promise<WebGraph> {
  const urls: string[] = [];
  const urlIndex = new Map<string, number>();
  const hosts: string[] = [];
  const hostIndex = new Map<string, number>();
  const urlHost: number[] = [];
  const sites: SiteGraph[] = [];
  for (const [si, seed] of seeds.entries()) {
    const nodes: Node[] = [];
    const byKey = new Map<string, number>();
    const node = (key: string, url: string): number => {
      let i = byKey.get(key);
      if (i === undefined) {
        byKey.set(key, (i = nodes.length));
        nodes.push({ key, url, read: null });
      }
      return i;
    };
    node(urlKey(new URL(seed.url), 'standard'), seed.url);
    for (;;) {
      const level = levels(nodes, byKey);
      const due = nodes.map((_, i) => i).filter((i) => nodes[i]!.read === null && level[i]! <= o.maxLevel);
      if (due.length === 0) {
        const denied = new Set<string>();
        if (o.denied) {
          const other = new Set<string>();
          for (const n of nodes) for (const l of n.read?.links.internal ?? []) if (!l.hold && l.url !== nodes[byKey.get(l.key)!]!.url) other.add(l.url);
          await pool([...other], o.concurrency, async (u) => void ((await o.denied!(u, si)) && denied.add(u)));
        }
        sites.push(assemble(seed, nodes, byKey, level, o.maxLevel, denied, (key, host) => {
          let u = urlIndex.get(key);
          if (u === undefined) {
            urlIndex.set(key, (u = urls.length));
            urls.push(key);
            let h = hostIndex.get(host);
            if (h === undefined) hostIndex.set(host, (h = hosts.push(host) - 1));
            urlHost.push(h);
          }
          return u;
        }));
        o.onSite?.(seed.host, sites.at(-1)!.pages.length);
        break;
      }
      await pool(due, o.concurrency, async (i) => {
        const n = nodes[i]!;
        if (n.read !== null) return; // read meanwhile through a redirect
        const got = await read(n.url, si);
        if (got === 'robots') {
          n.read = NOTHING;
          n.robots = true;
          return;
        }
        const r = got;
        n.read = r;
        if (r.final) {
          const t = node(r.final.key, r.final.url);
          n.target = t;
          if (nodes[t]!.read === null) {
            nodes[t]!.read = { ...r, final: null };
            nodes[t]!.via = true;
          }
        }
        const content = r.final ? nodes[n.target!]!.read! : r;
        for (const l of content.links.internal) if (!l.hold) node(l.key, l.url);
      });
    }
  }
  return { source: o.source, maxLevel: o.maxLevel, urls, urlHost, hosts, sites };
}

/** Breadth-first levels from node 0: a link one level down, an in-site redirect none. */
function levels(nodes: readonly Node[], byKey: ReadonlyMap<string, number>): number[] {
  const level = nodes.map(() => Infinity);
  level[0] = 0;
  const deque: number[] = [0];
  while (deque.length) {
    const i = deque.shift()!;
    const n = nodes[i]!;
    if (!n.read) continue;
    if (n.target !== undefined && level[n.target]! > level[i]!) {
      level[n.target] = level[i]!;
      deque.unshift(n.target);
    }
    if (n.target !== undefined) continue;
    for (const l of n.read.links.internal) {
      const j = l.hold ? undefined : byKey.get(l.key);
      if (j !== undefined && level[j]! > level[i]! + 1) {
        level[j] = level[i]! + 1;
        deque.push(j);
      }
    }
  }
  return level;
}

function assemble(
  seed: GraphSeed, nodes: readonly Node[], byKey: ReadonlyMap<string, number>, level: readonly number[], maxLevel: number, denied: ReadonlySet<string>,
  extIndex: (key: string, host: string) => number,
): SiteGraph {
  const kept = nodes.map((_, i) => i).filter((i) => level[i]! <= maxLevel && nodes[i]!.read !== null);
  const index = new Map(kept.map((i, k) => [i, k]));
  const pages: GraphPage[] = kept.map((i) => {
    const n = nodes[i]!;
    const r = n.read!;
    const p: GraphPage = { url: n.url, level: level[i]!, status: r.status, http: r.httpStatus, ext: [], links: [] };
    if (n.robots) p.robots = true;
    if (n.target !== undefined) {
      p.target = index.get(n.target)!;
      return p;
    }
    if (r.title) p.title = r.title;
    const ext = new Set<number>();
    for (const l of r.links.external) ext.add(extIndex(l.key, l.host));
    p.ext = [...ext];
    const seen = new Set<number>();
    const links: GraphLink[] = [];
    for (const l of r.links.internal) {
      if (l.hold) continue;
      const to = index.get(byKey.get(l.key)!);
      if (to === undefined || seen.has(to)) continue;
      seen.add(to);
      const link: GraphLink = { to, anchor: l.anchor ?? '', cues: l.cues ?? '' };
      if (l.url !== pages0Url(nodes, byKey, l.key)) link.url = l.url;
      if (denied.has(l.url)) link.robots = true;
      links.push(link);
    }
    p.links = links;
    return p;
  });
  return { host: seed.host, group: seed.group, pages };
}

const pages0Url = (nodes: readonly Node[], byKey: ReadonlyMap<string, number>, key: string): string => nodes[byKey.get(key)!]!.url;

async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.max(1, n) }, async () => {
    while (next < items.length) await f(items[next++]!);
  }));
}
