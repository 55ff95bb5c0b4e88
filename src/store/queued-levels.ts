import type { Db } from '../db/db.js';

/**
 * A queued page found again nearer the start page, in a crawl ordered by value: the nearer level
 * (and the page that linked it there) waits beside the page, in `queued_levels`, and becomes the
 * page's level when it is fetched. Its children then get their breadth-first levels, as if the
 * page had moved up at once. Moving the page's own level would move three index entries of
 * `pages`, and a value-ordered crawl finds some 17 queued pages a page nearer than before.
 *
 * What the stored level still decides while the page is queued stays exact: a page the nearer
 * level makes eligible (level <= max-level) moves up at once, and the queue's order (priority,
 * then level) reads the level the page was queued with, in a resumed crawl as in an
 * uninterrupted one, since everything here is written in the pull's own transaction.
 */
export class QueuedLevels {
  private standing;
  private keepStmt;
  private takeStmt;
  private lookStmt;
  private moveStmt;
  /**
   * page -> a level at or under which it is known here already (its own or its nearer one): a
   * value-ordered crawl finds the same queued pages again and again, and a find no nearer than
   * that asks nothing of the store. Levels only go down; kept by a crawl alone on its store
   * (another worker may fetch a page), emptied when a write fails (its rows rolled back).
   */
  private known: Map<number, number> | null;

  constructor(db: Db, opts: { remember?: boolean } = {}) {
    this.known = opts.remember ? new Map() : null;
    this.standing = db.prepare(`SELECT status, level FROM pages WHERE id = ?`).raw();
    this.keepStmt = db.prepare(
      `INSERT INTO queued_levels (page_id, level, found_on) VALUES (?, ?, ?)
       ON CONFLICT (page_id) DO UPDATE SET level = excluded.level, found_on = excluded.found_on WHERE excluded.level < queued_levels.level`,
    );
    this.takeStmt = db.prepare(`DELETE FROM queued_levels WHERE page_id = ? RETURNING level, found_on`).raw();
    this.lookStmt = db.prepare(`SELECT level FROM queued_levels WHERE page_id = ?`).pluck();
    this.moveStmt = db.prepare(`UPDATE pages SET level = ?, found_on = ? WHERE id = ? AND level > ?`);
  }

  /**
   * Page `id`, found at `level` from page `on`: true when that is kept here (the page is queued and
   * stays on the same side of maxLevel) or changes nothing; false when its own row must move.
   */
  keep(id: number, level: number, on: number | null, maxLevel: number): boolean {
    const known = this.known?.get(id);
    if (known !== undefined && known <= level) return true;
    const row = this.standing.get(id) as [string, number] | undefined;
    if (row === undefined) return true;
    if (row[1] <= level) {
      this.known?.set(id, row[1]);
      return true;
    }
    if (row[0] !== 'queued' || (row[1] > maxLevel && level <= maxLevel)) return false;
    this.keepStmt.run(id, level, on);
    this.known?.set(id, Math.min(level, known ?? level));
    return true;
  }

  /** The page left the queue some other way than being fetched (skipped): what is known of it goes. */
  forget(id: number): void {
    this.known?.delete(id);
  }

  /** A write failed: what this process knew may not be stored. */
  forgetAll(): void {
    this.known?.clear();
  }

  /** The page's level with its nearer one (a page about to be fetched). */
  levelOf(id: number, stored: number): number {
    const nearer = this.lookStmt.get(id) as number | undefined;
    return nearer === undefined ? stored : Math.min(stored, nearer);
  }

  /** The page is being fetched: its nearer level, if any, becomes its level. */
  settle(id: number): void {
    this.known?.delete(id);
    // Looked up first: few fetched pages have one, and a DELETE that finds nothing costs several
    // look-ups. The DELETE still reads what it takes (another worker may have lowered it since).
    if (this.lookStmt.get(id) === undefined) return;
    const row = this.takeStmt.get(id) as [number, number | null] | undefined;
    if (row) this.moveStmt.run(row[0], row[1], id, row[0]);
  }
}

/**
 * A new run: what waits beside pages no longer queued goes, and a nearer level that makes its page
 * eligible under this run's max-level moves it up (the setting may have changed); `all`: every
 * nearer level becomes its page's level (a run whose order reads the stored levels: bfs).
 */
export function settleQueuedLevels(db: Db, maxLevel: number, all: boolean): void {
  db.transaction(() => {
    // driven by queued_levels (a few rows), not by the pages
    const pick = all ? '' : `AND q.level <= ? AND p.level > ?`;
    const args = all ? [] : [maxLevel, maxLevel];
    db.prepare(
      `UPDATE pages SET level = (SELECT q.level FROM queued_levels q WHERE q.page_id = pages.id),
         found_on = (SELECT q.found_on FROM queued_levels q WHERE q.page_id = pages.id)
       WHERE id IN (SELECT q.page_id FROM queued_levels q JOIN pages p ON p.id = q.page_id WHERE p.status = 'queued' AND q.level < p.level ${pick})`,
    ).run(...args);
    db.prepare(`DELETE FROM queued_levels WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = queued_levels.page_id AND p.status = 'queued' AND p.level > queued_levels.level)`).run();
  })();
}
