import { nothingReachedLine } from '../net/waiting.js';
import { duration } from './progress.js';

/** What a run knows at its end of the failures for now it met. */
export interface RunReach {
  /** fetches or checks that reached their server */
  reached: number;
  /** attempts that failed for now, the last one's cause in a few words, and `url: error` */
  attempts: number;
  cause: string | null;
  lastFailure: string | null;
}

/**
 * A run that reached no server but met failures for now ends with one line naming the cause and
 * exit 1: not an error of the data (everything is kept for the next run), but nothing was done,
 * and scripts must see it. `waitedMs`: how long it waited before giving up (null: it did not).
 * True when it said so.
 */
export function endIfNothingReached(r: RunReach, waitedMs: number | null, command: string, kept: string): boolean {
  if (r.reached > 0 || r.attempts === 0) return false;
  const waited = waitedMs === null ? null : duration(waitedMs / 1000);
  process.stderr.write(nothingReachedLine({ waited, cause: r.cause, attempts: r.attempts, lastFailure: r.lastFailure, kept, command }) + '\n');
  process.exitCode = 1;
  return true;
}
