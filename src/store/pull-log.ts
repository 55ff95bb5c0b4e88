import type { Db, Statement } from '../db/db.js';
import type { Settings } from './settings.js';
import type { StoredPull } from '../schedule/crawl-state.js';

/** The outside link rows a page stored: [site id, URL key, host]. */
export type StoredExternal = [siteId: number, key: string, host: string];

/**
 * The crawl's pull log (`fetches` with each pull's page), read back in crawl order: at the start
 * of a run, and in a crawl shared by workers, the pulls the other workers committed since.
 */
export class PullLog {
  private columns: string;
  private afterSeq: Statement;
  private bySeq: Statement | null = null;
  private externalsOf: Statement | null = null;

  constructor(
    private db: Db,
    mode: Settings['reward'],
  ) {
    const reward = `coalesce(f.reward_${mode}, f.reward)`; // NULL: pulled before the per-mode columns, under 'pairs'
    this.columns = `f.seq, f.site_id, ${reward}, p.url, p.status, f.http_status, p.anchor, p.cues, p.terms, f.page_id FROM fetches f JOIN pages p ON p.id = f.page_id`;
    this.afterSeq = db.prepare(`SELECT ${this.columns} WHERE f.seq > ? ORDER BY f.seq`).raw();
  }

  /** The pulls after `seq`, in crawl order, streamed. */
  after(seq: number): Iterable<StoredPull> {
    return this.afterSeq.iterate(seq) as Iterable<StoredPull>;
  }

  /** These pulls, in crawl order. PostgreSQL only: a shared crawl's commits that came late. */
  these(seqs: Iterable<number>): StoredPull[] {
    this.bySeq ??= this.db.prepare(`SELECT ${this.columns} WHERE f.seq = ANY(?::bigint[]) ORDER BY f.seq`).raw();
    return this.bySeq.all(`{${[...seqs].join(',')}}`) as StoredPull[];
  }

  /** The external links these pages stored. PostgreSQL only: what the other workers of a shared crawl found. */
  externalLinksOf(pageIds: readonly number[]): Iterable<StoredExternal> {
    this.externalsOf ??= this.db.prepare(`SELECT site_id, key, host FROM external_links WHERE page_id = ANY(?::bigint[])`).raw();
    return this.externalsOf.iterate(`{${pageIds.join(',')}}`) as Iterable<StoredExternal>;
  }
}
