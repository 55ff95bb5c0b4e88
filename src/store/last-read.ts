import type { Db } from '../db/db.js';

/** A page as its last read left it: what a re-check compares the new answer with. */
export interface LastRead {
  status: string;
  fingerprint: number | null;
  textSize: number | null;
}

/** Reads a page's LastRead by page id. */
export function lastRead(db: Db): (pageId: number) => LastRead {
  const q = db.prepare(`SELECT status, fingerprint, text_size AS textSize FROM pages WHERE id = ?`);
  return (pageId) => q.get(pageId) as LastRead;
}
