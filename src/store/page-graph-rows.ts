import { BeebotError } from '../errors.js';
import type { PageEdge, PageGraph, PageNode } from '../map/page-graph.js';
import type { Db } from '../db/db.js';

/**
 * One site's pages, their fetch facts and the edges between them, as plain data.
 * A page's facts are those of its last pull; the target of an in-site redirect was never pulled
 * itself, so it takes the facts of the pull that redirected to it (the final response's).
 */
export function readPageGraph(db: Db, siteId: number): PageGraph {
  const start = db.prepare('SELECT id FROM pages WHERE site_id = ? AND level = 0 ORDER BY id LIMIT 1').pluck().get(siteId) as number | undefined;
  if (start === undefined) throw new BeebotError(`site ${siteId} has no start page`);
  const nodes = new Map<number, PageNode>();
  for (const p of db.prepare('SELECT id, url, status FROM pages WHERE site_id = ? ORDER BY id').all(siteId) as { id: number; url: string; status: string }[]) {
    nodes.set(p.id, { ...p, httpStatus: null, error: null, contentType: null, bytes: null, lastModified: null, title: null });
  }
  type Pull = { page: number; http: number | null; first: number | null; error: string | null; type: string | null; bytes: number | null; modified: string | null; title: string | null };
  const pulls = db
    .prepare(
      `SELECT f.page_id AS page, f.http_status AS http, h.status AS first, f.error, f.content_type AS type,
              coalesce(f.bytes, f.content_length) AS bytes, f.last_modified AS modified, f.title
         FROM fetches f LEFT JOIN hops h ON h.fetch_seq = f.seq AND h.n = 0
        WHERE f.site_id = ? ORDER BY f.seq`,
    )
    .all(siteId) as Pull[];
  const lastPull = new Map<number, Pull>();
  for (const f of pulls) lastPull.set(f.page, f); // in pull order: the last one stays
  const edges = db
    .prepare(
      `SELECT e.src, e.dst, e.anchor FROM pages p JOIN edges e ON e.src = p.id JOIN pages d ON d.id = e.dst AND d.site_id = p.site_id
        WHERE p.site_id = ? AND e.gone_at IS NULL ORDER BY e.src, e.dst`,
    )
    .all(siteId) as PageEdge[];
  const facts = (n: PageNode, f: Pull, redirected: boolean) => {
    // The redirecting page answered the redirect; its target answered what the pull ended with.
    n.httpStatus = redirected ? f.first : f.http;
    if (redirected) return;
    n.error = f.error;
    n.contentType = f.type;
    n.bytes = f.bytes;
    n.lastModified = f.modified;
    n.title = f.title;
  };
  for (const [id, f] of lastPull) {
    const n = nodes.get(id);
    if (n) facts(n, f, n.status === 'redirect');
  }
  for (const e of edges) {
    if (e.anchor !== null) continue;
    const f = lastPull.get(e.src);
    const n = nodes.get(e.dst);
    if (f && n && !lastPull.has(e.dst)) facts(n, f, false);
  }
  // A page a refresh found gone answered that last (crawl --refresh keeps no pull of it).
  const gone = db.prepare(
    `SELECT r.page_id AS page, r.http_status AS http FROM refreshes r JOIN pages p ON p.id = r.page_id
      WHERE p.site_id = ? AND p.status = 'gone' AND r.action = 'gone' ORDER BY r.seq`,
  ).all(siteId) as { page: number; http: number }[];
  for (const g of gone) {
    const n = nodes.get(g.page)!;
    n.httpStatus = g.http;
    n.error = null;
  }
  return { start, nodes: [...nodes.values()], edges };
}
