/**
 * The index quality Q / Q_max of a refresh run, from ground truth, without fetching anything
 * (bench:refresh). What the index holds of each URL is read off the changing web's request log,
 * not the database: its copy is the version served by the last 200, a 304 leaves it as it was,
 * a 404/410 drops it. The web model then says how much of that copy is still live at time t
 * (src/refresh/quality.ts, formula (1) as we read it).
 *
 * Content counts text and links: a link is LINK_CHARS characters, as the checker counts a change
 * (content-value.ts), so a page whose only change is a link born or gone loses value too.
 */
import { diffStates, type ChangingWeb, type PageState } from '../fixtures/changing-web/model.js';
import type { RequestLogEntry } from '../fixtures/changing-web/server.js';
import { LINK_CHARS, type ValueFunction } from '../src/refresh/content-value.js';
import { indexQuality, type DocTruth } from '../src/refresh/quality.js';

interface Page {
  host: string;
  path: string;
  /** times the page changes (content, links, birth, death), sorted */
  events: number[];
  /** state by version index (number of events at or before t) */
  states: Map<number, PageState>;
  /** DocTruth by "indexed version index|live version index" */
  docs: Map<string, DocTruth>;
}

export interface Quality {
  q: number;
  qMax: number;
}

/**
 * `quality(t).all` counts every page; `.tree` only the tree pages, leaving out the feeds' item
 * pages: those never change, so they weigh only until they are first read, and they measure how
 * fast new pages are found rather than how fresh the known ones are kept.
 */
export class IndexTruth {
  private treeUrls: Set<string>;
  private pages = new Map<string, Page>();
  private reach = new Map<number, Set<string>>();
  /** URL → time of the copy the index holds (absent: none) */
  private indexed = new Map<string, number>();
  private read = 0;

  constructor(private web: ChangingWeb, private log: readonly RequestLogEntry[], private until: number, private value: ValueFunction = 'log') {
    this.treeUrls = new Set(web.pages().map((p) => p.url));
  }

  /**
   * The same index, to go on from log entry `from`: each configuration starts from a copy of the
   * initial crawl's database (follow() this one up to the crawl's end first, then no more), and the
   * web's truth (states, diffs) is shared.
   */
  fork(from: number): IndexTruth {
    const t = new IndexTruth(this.web, this.log, this.until, this.value);
    t.indexed = new Map(this.indexed);
    t.pages = this.pages;
    t.reach = this.reach;
    t.read = from;
    return t;
  }

  /** Take in the requests logged since the last call. */
  follow(): void {
    for (; this.read < this.log.length; this.read++) {
      const e = this.log[this.read]!;
      if (e.path === '/robots.txt') continue;
      const url = `http://${e.host}${e.path}`;
      if (e.status === 200) this.indexed.set(url, e.at);
      else if (e.status === 404 || e.status === 410) this.indexed.delete(url);
    }
  }

  /**
   * Q and Q_max at time t. The documents are the pages reachable from the home pages at t (what
   * a perfectly fresh crawl would hold), plus the pages the index holds that have died (their
   * stale copies cost). A live page no longer linked (an item fallen off its feed) is neither:
   * no crawler could find it, and its copy, if any, no longer stands for the site.
   */
  quality(t: number): { all: Quality; tree: Quality } {
    this.follow();
    const live = this.reachable(t);
    const docs: DocTruth[] = [];
    const tree: DocTruth[] = [];
    const add = (url: string, d: DocTruth) => {
      docs.push(d);
      if (this.treeUrls.has(url)) tree.push(d);
    };
    for (const url of live) add(url, this.doc(url, t));
    for (const url of this.indexed.keys()) {
      if (live.has(url)) continue;
      const d = this.doc(url, t);
      if (!d.alive) add(url, d);
    }
    return { all: indexQuality(docs, this.value), tree: indexQuality(tree, this.value) };
  }

  /** The live pages linked from their home page, at any depth, at t (shared by the forks: the web's truth). */
  private reachable(t: number): Set<string> {
    let r = this.reach.get(t);
    if (r) return r;
    r = new Set<string>();
    const todo = this.web.hosts.map((h) => `http://${h}/`);
    while (todo.length) {
      const url = todo.pop()!;
      if (r.has(url)) continue;
      const p = this.page(url);
      const st = this.state(p, version(p.events, t));
      if (!st.alive) continue;
      r.add(url);
      for (const l of st.links) if (l.startsWith(`http://${p.host}/`) && !r.has(l)) todo.push(l);
    }
    this.reach.set(t, r);
    return r;
  }

  private doc(url: string, t: number): DocTruth {
    const p = this.page(url);
    const at = this.indexed.get(url);
    const now = version(p.events, t);
    const then = at === undefined ? -1 : version(p.events, at);
    const key = `${then}|${now}`;
    let d = p.docs.get(key);
    if (!d) {
      const live = this.state(p, now);
      const size = (s: PageState) => (s.alive ? s.textChars + LINK_CHARS * s.links.length : 0);
      d = { alive: live.alive, liveChars: size(live), indexed: false, currentChars: 0, changedChars: 0 };
      if (then >= 0) {
        const copy = this.state(p, then);
        const x = diffStates(copy, live);
        const kept = copy.links.length - x.linksRemoved.length;
        d.indexed = copy.alive;
        d.currentChars = x.same + LINK_CHARS * (live.alive ? kept : 0);
        d.changedChars = x.changed + LINK_CHARS * (x.linksAdded.length + x.linksRemoved.length);
      }
      p.docs.set(key, d);
    }
    return d;
  }

  private page(url: string): Page {
    let p = this.pages.get(url);
    if (!p) {
      const u = new URL(url);
      const path = u.pathname + u.search;
      p = { host: u.hostname, path, events: this.web.changeTimes(u.hostname, path, this.until), states: new Map(), docs: new Map() };
      this.pages.set(url, p);
    }
    return p;
  }

  private state(p: Page, v: number): PageState {
    let s = p.states.get(v);
    if (!s) {
      // The state from the v-th event on. A page without events is the same all its life (an item
      // page is published once and never changes): read it at the end, when it surely exists.
      const t = v > 0 ? p.events[v - 1]! : p.events.length ? this.web.start : this.until;
      s = this.web.state(p.host, p.path, t);
      p.states.set(v, s);
    }
    return s;
  }
}

/** The number of events at or before t (binary search). */
function version(events: readonly number[], t: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
