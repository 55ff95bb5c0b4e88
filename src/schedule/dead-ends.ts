/**
 * Kinds of link that keep answering with nothing to crawl. On real documentation sites a quarter
 * of a full crawl's pulls went to links the site does not serve: translations that were never
 * built (every `*.ja.html` a 404), other versions of the docs (`/docs/latest-v4.x/api/…`),
 * source files served as application/octet-stream (`*.ly`). A link belongs to three classes of
 * its site: its directory, its extension and its double extension (`ja.html`). Here each class's
 * pulls are tallied; when a class is a dead end (its site's further links in it stored as
 * `skipped`, never fetched) is a link's fate, decided in page/link-fate.ts from these tallies.
 *
 * Pure bookkeeping over plain data: the crawl feeds it each pull's outcome in crawl order, and a
 * resumed crawl feeds it the stored pulls first, so it makes the same decisions.
 */
export type PullOutcome = 'page' | 'dead' | 'other';

/** One class of a link and its site's pulls in it: how many gave an HTML page, how many were dead. */
export interface ClassTally {
  cls: string;
  good: number;
  bad: number;
}

export class DeadEnds {
  private counts = new Map<string, { good: number; bad: number }>();

  /** limit: failed pulls with no page that make a class a dead end; null: never (nothing is tallied). */
  constructor(readonly limit: number | null) {}

  record(siteId: number, url: string, outcome: PullOutcome): void {
    if (this.limit === null || outcome === 'other') return;
    for (const c of linkClasses(url)) {
      const k = `${siteId} ${c}`;
      const n = this.counts.get(k) ?? { good: 0, bad: 0 };
      if (outcome === 'page') n.good++;
      else n.bad++;
      this.counts.set(k, n);
    }
  }

  /** The tallies of a link's classes in its site, those with a pull (none when nothing is tallied). */
  tallies(siteId: number, url: string): ClassTally[] {
    if (this.limit === null) return [];
    const out: ClassTally[] = [];
    for (const cls of linkClasses(url)) {
      const n = this.counts.get(`${siteId} ${cls}`);
      if (n) out.push({ cls, good: n.good, bad: n.bad });
    }
    return out;
  }
}

/** What a pull of a page gave, for DeadEnds: an HTML page, a dead link (4xx, not HTML), or neither. */
export function pullOutcome(status: string, httpStatus: number | null): PullOutcome {
  if (status === 'done') return 'page';
  if (status === 'not-html' || (httpStatus !== null && httpStatus >= 400 && httpStatus < 500)) return 'dead';
  return 'other'; // network errors and 5xx are the server's state, not the link's kind
}

/** The classes of a link: 'dir /a/b/', '*.ly', '*.ja.html' (the query marks its directory apart). */
export function linkClasses(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const path = u.pathname;
  const slash = path.lastIndexOf('/');
  const out = [`dir ${path.slice(0, slash + 1)}${u.search ? '?' : ''}`];
  const parts = path.slice(slash + 1).split('.');
  if (parts.length > 1 && parts[0] !== '') out.push(`*.${parts.at(-1)!.toLowerCase()}`);
  if (parts.length > 2) out.push(`*.${parts.slice(-2).join('.').toLowerCase()}`);
  return out;
}
