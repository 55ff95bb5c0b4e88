import { sqliteOf, type Db } from '../db/db.js';
import { byStore } from '../db/dialect.js';
import { registerUrlFunctions } from '../db/url-functions.js';

/** The node a linked URL counts for in the site graph, or null for none (site-graph/site-graph.ts). */
export type NodeOf = (url: string) => string | null;

/** The live external links counted as the site graph reads them. */
export interface SiteGraphRows {
  /** live external link rows per site */
  linksOutBySite(): Map<number, number>;
  /** [node, links, sites linking], ordered by node */
  linksPerNode(): Iterable<[string, number, number]>;
  /** [site id, node, links, distinct pages, distinct URLs], ordered by site, links (most first), node */
  linksPerSiteAndNode(): Iterable<[number, string, number, number, number]>;
}

/** Counted by SQLite with `nodeOf` as an SQL function; on PostgreSQL, grouped in JavaScript. */
export function siteGraphRows(db: Db, nodeOf: NodeOf): SiteGraphRows {
  return byStore(db, { sqlite: countedBySqlite, pg: countedInJs })(db, nodeOf);
}

const linksOutBySite = (db: Db) =>
  new Map(db.prepare('SELECT site_id, count(*) FROM external_links WHERE gone_at IS NULL GROUP BY site_id').raw().all() as [number, number][]);

/** Aggregated and streamed by SQLite: memory grows with the rows read, not the links. */
function countedBySqlite(db: Db, nodeOf: NodeOf): SiteGraphRows {
  registerUrlFunctions(db);
  sqliteOf(db).function('beebot_node', { deterministic: true }, (url: unknown) => (typeof url === 'string' ? nodeOf(url) : null));
  return {
    linksOutBySite: () => linksOutBySite(db),
    linksPerNode: () =>
      db
        .prepare('SELECT beebot_node(url) AS n, count(*), count(DISTINCT site_id) FROM external_links WHERE gone_at IS NULL GROUP BY n HAVING n IS NOT NULL ORDER BY n')
        .raw()
        .iterate() as Iterable<[string, number, number]>,
    linksPerSiteAndNode: () =>
      db
        .prepare(
          `SELECT site_id, beebot_node(url) AS n, count(*) AS w, count(DISTINCT page_id), count(DISTINCT url) FROM external_links WHERE gone_at IS NULL
           GROUP BY site_id, n HAVING n IS NOT NULL ORDER BY site_id, w DESC, n`,
        )
        .raw()
        .iterate() as Iterable<[number, string, number, number, number]>,
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** PostgreSQL has no beebot_node: the same rows, in the same order, grouped here. */
function countedInJs(db: Db, nodeOf: NodeOf): SiteGraphRows {
  return {
    linksOutBySite: () => linksOutBySite(db),
    linksPerNode: () => groupInJs(db, nodeOf, () => 0, (site) => site).map(([key, n, sites]): [string, number, number] => [key as string, n, sites]),
    linksPerSiteAndNode: () =>
      groupInJs(db, nodeOf, (site) => site, (_, page) => page)
        .map(([key, w, pages, urls]): [number, string, number, number, number] => [(key as [number, string])[0], (key as [number, string])[1], w, pages, urls])
        .sort((a, b) => a[0] - b[0] || b[2] - a[2] || cmp(a[1], b[1])),
  };
}

/**
 * The live external links stream in and are grouped here by node (and by `by`, 0 for none),
 * counting rows, distinct values of `distinct` and distinct URLs. Nodes are ASCII host names, so
 * JavaScript's order is SQLite's. Yields [node] or [[by, node]] keys, sorted by node.
 */
function groupInJs(
  db: Db, nodeOf: NodeOf, by: (site: number) => number, distinct: (site: number, page: number) => number,
): [unknown, number, number, number][] {
  const groups = new Map<string, { key: unknown; n: number; seen: Set<number>; urls: Set<string> }>();
  const rows = db.prepare('SELECT site_id, page_id, url FROM external_links WHERE gone_at IS NULL').raw().iterate() as Iterable<[number, number, string]>;
  for (const [site, page, url] of rows) {
    const node = nodeOf(url);
    if (node === null) continue;
    const b = by(site);
    const k = `${b} ${node}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { key: b === 0 ? node : [b, node], n: 0, seen: new Set(), urls: new Set() }));
    g.n++;
    g.seen.add(distinct(site, page));
    g.urls.add(url);
  }
  return [...groups.values()]
    .map((g): [unknown, number, number, number] => [g.key, g.n, g.seen.size, g.urls.size])
    .sort((a, b) => cmp(String(a[0]), String(b[0])));
}
