import type { FrontierPage } from '../schedule/queued-page.js';
import type { Prioritize, Rescore } from '../schedule/links/rescore.js';
import type { LinkOrder } from '../schedule/link-order.js';
import { takeLinks, type IntakeStore } from '../schedule/link-intake.js';
import { takeContent, type ContentStore } from '../schedule/content-intake.js';
import { takeExternal, type ExternalStore, type Newness } from '../schedule/external-intake.js';
import type { PageStatus } from '../pull/pull-record.js';
import type { SiteQueues } from '../schedule/page-choice.js';
import { MemoryFrontier } from '../schedule/memory-frontier.js';
import { contentOf, type GraphLink, type SiteGraph, type WebGraph } from './web-graph.js';

/** A row of the replay's pages: the columns of the store's `pages` that a crawl's choices read. */
interface Row {
  id: number;
  site: number;
  node: number;
  /** the spelling fetched: the first link's that queued it */
  url: string;
  /** robots.txt of that spelling's origin denies it */
  robots: boolean;
  /** its level once it left the queue (a queued page's is the frontier's) */
  level: number;
  status: 'queued' | 'done' | 'not-html' | 'error' | 'redirect' | 'skipped';
}

/** What an external link of the graph is new to, with its URL and host (indices in the graph). */
interface GraphNewness extends Newness {
  url: number;
  host: number;
}

/** The pull whose content and links are stored: its site, the site's graph, the pulled row and the row its content is stored on. */
interface PullAt {
  site: number;
  graph: SiteGraph;
  pulled: Row;
  /** what the pull read: the status its content is stored with */
  status: Row['status'];
  content: Row;
}

/** What one pull gave: the rewards and what the whole store gained. */
export interface ReplayPull {
  site: number;
  /** the pulled page (index in its site's graph) */
  node: number;
  level: number;
  /** what the pull stores as its status (an in-site redirect: its target's) */
  status: PageStatus;
  http: number | null;
  /** it read an HTML page not read before (what limit.py counts as a page) */
  page: boolean;
  /** external URLs new to the site, outside hosts new to the site, (page, URL) pairs new to the store */
  urls: number;
  hosts: number;
  pairs: number;
  /** external URLs and outside hosts new to the whole store */
  newUrls: number;
  newHosts: number;
}

/**
 * The store a crawl writes (store/pull-writer.ts), offline: in memory over a page graph, its
 * queue the crawl's own in-memory frontier (schedule/memory-frontier.ts), a pull's content, external
 * links and internal links taken by the crawl's own steps (schedule/content-intake.ts,
 * external-intake.ts, link-intake.ts): the same rows, the same order
 * of the next page, the same levels, the same rewards. Site ids are 1-based in graph order, as
 * `seeds import` gives them. The live check (scripts/harvest-live.ts) holds the two to each other.
 */
export class ReplayStore implements SiteQueues {
  private rows: Row[] = [];
  private byNode: Map<number, Row>[];
  private queue: MemoryFrontier;
  private siteUrls: Set<number>[];
  private siteHosts: Set<number>[];
  private readPages = new Set<Row>();
  readonly urls = new Set<number>();
  readonly hosts = new Set<number>();
  /** (site, URL) pairs: the sum of the sites' urls rewards */
  pairsSiteUrl = 0;

  constructor(
    readonly web: WebGraph,
    private ordered: boolean,
    /** the crawl reads each link's context (net/page-reader.ts: --order value): its stored cues, else its URL and anchor alone */
    private context = false,
    /** the crawl's max-level: a nearer level that makes a queued page eligible moves it at once */
    maxLevel = Infinity,
  ) {
    const k = web.sites.length;
    this.queue = new MemoryFrontier(ordered, maxLevel);
    this.byNode = Array.from({ length: k + 1 }, () => new Map());
    this.siteUrls = Array.from({ length: k + 1 }, () => new Set());
    this.siteHosts = Array.from({ length: k + 1 }, () => new Set());
    web.sites.forEach((_, i) => this.insert(i + 1, 0, 0, null));
  }

  site(id: number): SiteGraph {
    return this.web.sites[id - 1]!;
  }

  private insert(site: number, node: number, level: number, ordered: { priority: number; anchor: string | null; cues: string | null; cash: number; inherit: number; dist: number; inlinks: number } | null, link?: GraphLink): Row {
    const p = this.site(site).pages[node]!;
    const row: Row = { id: this.rows.length + 1, site, node, url: link?.url ?? p.url, robots: link?.url ? link.robots === true : p.robots === true, level, status: 'queued' };
    this.rows.push(row);
    this.byNode[site]!.set(node, row);
    this.queue.add({ id: row.id, siteId: site, url: row.url, level, ...ordered });
    return row;
  }

  /** The row's level now: the frontier's while it is queued. */
  private levelOf(row: Row): number {
    return this.queue.levelOf(row.id) ?? row.level;
  }

  private setStatus(row: Row, status: Row['status']): void {
    if (status !== 'queued') row.level = this.queue.take(row.id) ?? row.level;
    row.status = status;
  }

  /** A replayed page never fails for now: nothing waits for a retry. */
  soonestRetry(): null {
    return null;
  }

  nextPage(siteId: number): FrontierPage | undefined {
    return this.queue.nextPage(siteId);
  }

  rescore(siteId: number, prioritize: Prioritize, which: Rescore = 'all'): void {
    this.queue.rescore(siteId, prioritize, which);
  }

  /** robots.txt keeps the page from being fetched (under the spelling it was queued with). */
  denied(page: FrontierPage): boolean {
    return this.rows[page.id - 1]!.robots;
  }

  skip(page: FrontierPage): void {
    this.setStatus(this.rows[page.id - 1]!, 'skipped');
  }

  /**
   * Pull a page and store what it gave, in store/pull-writer.ts write's steps: content, external
   * links, internal links, ordered or not. `order`: the crawl's LinkOrder in an ordered crawl.
   */
  pull(page: FrontierPage, order: LinkOrder | null): ReplayPull {
    const pulled = this.rows[page.id - 1]!;
    const site = pulled.site;
    const graph = this.site(site);
    const node = graph.pages[pulled.node]!;
    const at: PullAt = { site, graph, pulled, status: node.status, content: pulled };
    const level = takeContent(this.content, at, page.level);
    const { content } = at;
    const read = graph.pages[content.node]!;
    // A content page read again stores no (page, URL) pair anew: its links earn nothing.
    const first = !this.readPages.has(content);
    if (first) this.readPages.add(content);
    const { rewards, newUrls, newHosts } = takeExternal(this.external, site, first ? read.ext : []);
    const out: ReplayPull = {
      site, node: pulled.node, level: page.level, status: node.status, http: node.http, page: first && node.status === 'done', ...rewards, newUrls, newHosts,
    };
    this.pairsSiteUrl += out.urls;
    takeLinks(this.intake, at, read.links, level, order && { order, page, reward: out.urls, terms: undefined });
    return out;
  }

  /**
   * The store under the content step (schedule/content-intake.ts), over the rows. A target found
   * deeper moves up as its content is stored at the nearer level; without edges, nothing it
   * links follows (the live store's lower does).
   */
  private content: ContentStore<Row, PullAt> = {
    target: (c, level) => {
      const t = contentOf(c.graph, c.pulled.node);
      if (t === c.pulled.node) return undefined;
      return this.byNode[c.site]!.get(t) ?? this.insert(c.site, t, level, null);
    },
    levelOf: (_c, row) => this.levelOf(row),
    redirected: (c) => this.setStatus(c.pulled, 'redirect'),
    lower: () => {},
    content: (c, row = c.pulled, level) => {
      this.setStatus(row, c.status);
      row.level = Math.min(row.level, level);
      c.content = row;
    },
  };

  /**
   * The store under the external count (schedule/external-intake.ts), `c` the pulled page's site:
   * a link is its URL's index in the graph, which holds each once per page, so every pair given is
   * stored; what it is new to is read of the sets of the site's and the store's URLs and hosts.
   */
  private external: ExternalStore<number, GraphNewness, number> = {
    store: () => true,
    ask: (site, u) => {
      const n = this.newness;
      n.url = u;
      n.urlToSite = !this.siteUrls[site]!.has(u);
      n.urlToStore = n.urlToSite && !this.urls.has(u);
      n.hostToSite = n.hostToStore = false;
      if (!n.urlToSite) return n;
      n.host = this.web.urlHost[u]!;
      n.hostToSite = !this.siteHosts[site]!.has(n.host);
      n.hostToStore = n.hostToSite && !this.hosts.has(n.host);
      return n;
    },
    mark: (site, n) => {
      if (n.urlToSite) this.siteUrls[site]!.add(n.url);
      if (n.urlToStore) this.urls.add(n.url);
      if (n.hostToSite) this.siteHosts[site]!.add(n.host);
      if (n.hostToStore) this.hosts.add(n.host);
    },
  };

  /** The answer ask hands back, reused: it runs for every external link. */
  private newness: GraphNewness = { url: 0, host: 0, urlToSite: false, urlToStore: false, hostToSite: false, hostToStore: false };

  /**
   * The store under the link intake (schedule/link-intake.ts), over the rows and the frontier. It
   * keeps no edges, and a fetched page keeps the level it was fetched at: without edges a nearer
   * level cannot reach what the page links (the live store's lower does). A page graph holds no
   * held links (graph-build.ts), and no key is counted against max-query-variants.
   */
  private intake: IntakeStore<GraphLink, never, Row, PullAt> = {
    keyOf: (l) => l.to,
    heldBy: () => undefined,
    find: (c, l) => this.byNode[c.site]!.get(l.to),
    levelOf: (row) => this.levelOf(row),
    queued: (row) => row.status === 'queued',
    edge: () => {},
    lower: (_c, row, level) => this.queue.raise(row.id, level),
    nearer: (_c, row, level) => this.queue.nearer(row.id, level),
    trap: () => undefined,
    hold: () => {},
    insert: (c, l, level, scored) => {
      const ordered = scored && { priority: scored.priority, anchor: l.anchor, cues: scored.state.cues || null, cash: scored.state.cash, inherit: scored.state.inherit, dist: scored.state.dist, inlinks: scored.state.inlinks };
      this.insert(c.site, l.to, level, ordered, l);
    },
    // The link's cues as the page reader gives them live: with context (URL, anchor, text before it, title, tag path) or none.
    asked: (c, l, row) => ({
      url: l.url ?? c.graph.pages[l.to]!.url, anchor: l.anchor, cues: this.context ? l.cues || undefined : undefined,
      known: row ? this.queue.known(row.id)! : null,
    }),
    update: (_c, row, level, { state, priority }) => this.queue.update(row.id, priority, state, level),
    queuedPages: (c, atMost) => Math.min(this.queue.queued(c.site), atMost),
    rescore: (c, prioritize, which) => this.rescore(c.site, prioritize, which),
  };
}

