import type { Db } from '../db/db.js';
import { byStore, jsonValues } from '../db/dialect.js';
import { countRows, filterWhere, linkTables, matchingIds } from './export.js';
import type { LinkFilter, LinkKind } from './link-filter.js';

export interface DeletePlan {
  /** rows the filter selects */
  matching: number;
  /** of those, rows that will be deleted */
  deletable: number;
}

/**
 * What `links delete` would do. External and bad links are all deletable. Internal links are pages:
 * only unfetched pages (the frontier) above the start page can go — a fetched page carries the pull
 * log, the budget spent and the rewards the scheduler learned from, so it stays part of the record.
 */
export function planDelete(db: Db, kind: LinkKind, f: LinkFilter): DeletePlan {
  return { matching: countRows(db, kind, f), deletable: countRows(db, kind, f, { deletableOnly: true }) };
}

/**
 * Delete the deletable rows a filter selects and leave a tombstone (site, kind, key) for each, so a
 * resumed crawl does not store that URL (or raw href) for that site again. One transaction.
 */
export function deleteLinks(db: Db, kind: LinkKind, f: LinkFilter, now: Date = new Date()): number {
  return byStore(db, { sqlite: deleteInSqlite, pg: deletePg })(db, kind, f, now);
}

/** SQLite: the filter (with beebot's URL functions) selects the rows to tombstone and delete. */
function deleteInSqlite(db: Db, kind: LinkKind, f: LinkFilter, now: Date): number {
  const t = linkTables[kind];
  const { where, params } = filterWhere(db, kind, f, { deletableOnly: true });
  const table = { external: 'external_links', internal: 'pages', bad: 'bad_links' }[kind];
  return db.transaction(() => {
    db.prepare(
      `INSERT OR IGNORE INTO deleted_links (site_id, kind, key, deleted_at)
       SELECT ${t.fields.site}, '${kind}', ${t.key}, @deletedAt FROM ${t.from} ${where}`,
    ).run({ ...params, deletedAt: now.toISOString() });
    // Deletable pages are unfetched: links point at them, none leave them. edges has no index on
    // dst (it would slow every crawl), so this scans it once per delete.
    if (kind === 'internal') db.prepare(`DELETE FROM edges WHERE dst IN (SELECT ${t.id} FROM ${t.from} ${where})`).run(params);
    return db.prepare(`DELETE FROM ${table} WHERE id IN (SELECT ${t.id} FROM ${t.from} ${where})`).run(params).changes;
    // IMMEDIATE: take the write lock first, waiting for a running crawl's group to commit. A
    // deferred transaction reads first, and when the crawl commits while it waits for the lock its
    // snapshot is stale: SQLite then answers SQLITE_BUSY at once, without the busy timeout.
  }).immediate();
}

/**
 * PostgreSQL: --host and --grep are tested in JavaScript (export.ts, RowTest), so the rows are
 * chosen by id first, then tombstoned and deleted by those ids, in one transaction.
 */
function deletePg(db: Db, kind: LinkKind, f: LinkFilter, now: Date): number {
  const t = linkTables[kind];
  const table = { external: 'external_links', internal: 'pages', bad: 'bad_links' }[kind];
  const ids = jsonValues(db, '@ids', 'bigint');
  return db.transaction(() => {
    const chosen = JSON.stringify(matchingIds(db, kind, f, { deletableOnly: true }));
    db.prepare(
      `INSERT INTO deleted_links (site_id, kind, key, deleted_at)
       SELECT ${t.fields.site}, '${kind}', ${t.key}, @deletedAt FROM ${t.from} WHERE ${t.id} IN (${ids}) ON CONFLICT DO NOTHING`,
    ).run({ ids: chosen, deletedAt: now.toISOString() });
    if (kind === 'internal') db.prepare(`DELETE FROM edges WHERE dst IN (${ids})`).run({ ids: chosen });
    return db.prepare(`DELETE FROM ${table} WHERE id IN (${ids})`).run({ ids: chosen }).changes;
  })();
}
