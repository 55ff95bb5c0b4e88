/**
 * Kinds of link that keep answering with nothing to crawl. On real documentation sites a quarter
 * of a full crawl's pulls went to links the site does not serve: translations that were never
 * built (every `*.ja.html` a 404), other versions of the docs (`/docs/latest-v4.x/api/…`),
 * source files served as application/octet-stream (`*.ly`). A link belongs to three classes of
 * its site: its directory, its extension and its double extension (`ja.html`). A class whose
 * pulls failed `limit` times (4xx or not HTML) and never gave an HTML page is a dead end: the
 * site's further links in it are stored with status `skipped` and not fetched.
 *
 * Pure bookkeeping over plain data: the crawl feeds it each pull's outcome in crawl order, and a
 * resumed crawl feeds it the stored pulls first, so it makes the same decisions.
 */
export type PullOutcome = 'page' | 'dead' | 'other';

export class DeadEnds {
  private counts = new Map<string, { good: number; bad: number }>();

  /** limit = null: never skip. */
  constructor(private limit: number | null) {}

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

  /** Why a link of this site is a dead end ('404 x3 in *.ja.html, no page'), or null. */
  verdict(siteId: number, url: string): string | null {
    if (this.limit === null) return null;
    for (const c of linkClasses(url)) {
      const n = this.counts.get(`${siteId} ${c}`);
      if (n && n.good === 0 && n.bad >= this.limit) return `dead end: ${n.bad} failed pulls and no page in ${c}`;
    }
    return null;
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
