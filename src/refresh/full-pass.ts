import type { Db } from '../db/db.js';
import { RefreshLog, type RefreshLogAction } from './refresh-log.js';
import type { Settings } from '../store/settings.js';
import { PageChecker, type CheckOutcome } from './page-check.js';
import { FailingForNow, type FailuresForNow } from './failing-for-now.js';
import type { WaitState } from '../net/waiting.js';
import { realClock } from '../time/clock.js';

export interface RefreshOptions {
  settings: Settings;
  /** Re-checks this run may make; null: no limit (a refresh counts against no crawl budget). */
  budget: number | null;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  signal: AbortSignal;
  onCheck?: (e: { url: string; action: RefreshLogAction; httpStatus: number | null }) => void;
  /** Nothing can be checked now: why, and what happens next (called at each wait). */
  onWait?: (w: WaitState) => void;
}

export interface RefreshSummary {
  gen: number;
  resumed: boolean;
  /** waiting: only pages that failed for now were left, and the run waited for them as long as it may */
  reason: 'done' | 'budget' | 'interrupted' | 'waiting';
  counts: Record<RefreshLogAction, number>;
  /** of the kept pages, those answering 200 with the text and links they had (no validators, or a touched file) */
  same: number;
  /** pages of this generation still to check */
  left: number;
  seconds: number;
  failures: FailuresForNow;
}

/**
 * `crawl --refresh`: re-check every read page once per generation (page-check.ts), in page order,
 * one at a time. Each page's outcome and its log row are committed together, so a stopped run
 * resumes with the pages not checked. New internal pages a changed page links to are queued: the
 * next `beebot crawl` fetches them. While no server has answered, a page whose check failed for now
 * is put off and tried again (failing-for-now.ts).
 */
export async function refresh(db: Db, o: RefreshOptions): Promise<RefreshSummary> {
  const started = Date.now();
  const log = new RefreshLog(db);
  const { gen, resumed } = log.generation();
  const checker = await PageChecker.open(db, { settings: o.settings, resolve: o.resolve, proxy: o.proxy });
  const failing = new FailingForNow(checker, { settings: o.settings, proxy: o.proxy, clock: realClock, onWait: o.onWait });
  const counts: RefreshSummary['counts'] = { keep: 0, replace: 0, gone: 0, retry: 0, skipped: 0 };
  let reason: RefreshSummary['reason'] = 'done';
  let fetched = 0;
  let same = 0;
  try {
    for (let after = 0; ; ) {
      if (o.signal.aborted) {
        reason = 'interrupted';
        break;
      }
      if (o.budget !== null && fetched >= o.budget) {
        reason = 'budget';
        break;
      }
      const page = await failing.next(() => {
        const p = log.next(gen, after);
        if (p) after = p.id;
        return p;
      }, o.signal);
      if (page === 'stopped' || page === 'waited-out') {
        reason = page === 'stopped' ? 'interrupted' : 'waiting';
        break;
      }
      if (!page) break;
      const out = await checker.check(page, log.validators(page.id), o.signal, (c: CheckOutcome) => log.log(gen, page.id, c));
      if (out === 'aborted') {
        reason = 'interrupted';
        break;
      }
      if ('unreached' in out) {
        failing.put(page, out);
        continue;
      }
      if (out.action !== 'skipped') fetched++;
      counts[out.action]++;
      if (out.action === 'keep' && out.httpStatus !== 304) same++;
      o.onCheck?.({ url: page.url, action: out.action, httpStatus: out.httpStatus });
    }
  } finally {
    await checker.close();
  }
  const left = log.left(gen);
  if (left === 0) log.finish(gen);
  return { gen, resumed, reason, counts, same, left, seconds: (Date.now() - started) / 1000, failures: failing.summary() };
}
