import type { Db } from './db.js';
import { beginWriting } from './write-lock.js';
import { sameFile } from './db-file.js';

/**
 * Group commit: a crawl's pages are written inside one open transaction that is committed every
 * `maxPages` pages or `maxMs` milliseconds, whichever comes first. A commit per page rewrote the
 * same index pages into the WAL again and again; grouped, they are written once per group. The
 * time bound is long enough for a group to fill at a crawl's speed (100-250 pages/s at `--delay 0`:
 * a bound of 200 ms closed groups at 20-30 pages, and the commits cost the value order 3 % of its CPU).
 *
 * Each page is still atomic: it runs in its own savepoint, so a page is stored whole or not at
 * all. A killed crawl loses at most the last group's pages, and those are still queued in the
 * committed database, so a resume fetches them again and no link is lost.
 */
export class GroupCommit {
  private pages = 0;
  private timer: NodeJS.Timeout | null = null;
  /** A commit that failed on the timer: thrown at the next write, where the crawl can handle it. */
  private failure: unknown = null;
  /** Throws once the SQLite file was deleted or replaced: a commit then would go nowhere. */
  private stillThere: () => void;
  private gone: unknown = null;

  constructor(
    private db: Db,
    private maxPages = 64,
    private maxMs = 1000,
  ) {
    this.stillThere = db.kind === 'sqlite' && db.name !== ':memory:' ? sameFile(db.name) : () => {};
  }

  /** Run `f` as one atomic unit of the current group (opening one if none is open). */
  write<T>(f: () => T): T {
    if (this.gone) throw this.gone;
    if (this.failure) {
      const err = this.failure;
      this.failure = null;
      throw err;
    }
    if (!this.db.inTransaction) {
      beginWriting(this.db);
      this.pages = 0;
      this.timer = setTimeout(() => this.flushOnTimer(), this.maxMs);
      this.timer.unref();
    }
    try {
      // Inside an open transaction better-sqlite3 runs this as a savepoint.
      const out = this.db.transaction(f)();
      if (++this.pages >= this.maxPages) this.flush();
      return out;
    } catch (err) {
      // The group is gone with a lost connection (lost-connection.ts): its timer has nothing to commit.
      if (!this.db.inTransaction && this.timer) clearTimeout(this.timer);
      throw err;
    }
  }

  /** Commit the open group, if any. Called when a crawl ends, however it ends. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.gone) throw this.gone;
    if (!this.db.inTransaction) return;
    try {
      this.stillThere();
    } catch (err) {
      // Once gone, gone for good: every later write and flush says so, and the crawl stops.
      this.gone = err;
      this.db.exec('ROLLBACK');
      throw err;
    }
    try {
      this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  private flushOnTimer(): void {
    try {
      this.flush();
    } catch (err) {
      this.failure = err;
    }
  }
}
