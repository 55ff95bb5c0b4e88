import type { CheckOutcome } from '../refresh/page-check.js';
import { waitLine, type WaitState } from '../net/waiting.js';
import { shorten, waitLines } from './progress.js';

/** One check as the progress shows it (pure): what happened to the page. */
export function checkOutcome(c: Pick<CheckOutcome, 'action' | 'httpStatus' | 'firstRead' | 'linksAdded' | 'linksGone'>): string {
  if (c.action === 'keep') return c.httpStatus === 304 ? 'unchanged (304)' : 'unchanged';
  if (c.action === 'replace') return `${c.firstRead ? 'new' : 'changed'} +${c.linksAdded} -${c.linksGone} links`;
  if (c.action === 'gone') return `gone -${c.linksGone} links`;
  return c.action === 'retry' ? 'failed (kept)' : 'skipped (robots.txt)';
}

/**
 * `beebot refresh`'s live line on a terminal, redrawn at most ten times a second; one
 * tab-separated line per check (iteration, HTTP status, outcome, URL) when stderr is piped or
 * CI, TERM=dumb or NO_COLOR ask for no animation, as `crawl` does.
 */
export function refreshProgress(out: NodeJS.WriteStream = process.stderr) {
  const env = process.env;
  const live = Boolean(out.isTTY) && !env.CI && env.TERM !== 'dumb' && env.NO_COLOR === undefined;
  let planned = 0;
  let done = 0;
  let changed = 0;
  let lastDraw = 0;
  let drawn = false;
  const piped = waitLines(out);
  const width = () => Math.max(20, (out.columns || 100) - 1);
  return {
    start(gen: number, plan: number, checked: number): void {
      planned = plan;
      done = checked;
      changed = 0;
    },
    onCheck(e: { gen: number; url: string } & CheckOutcome): void {
      done++;
      piped.over();
      if (e.action === 'replace' || e.action === 'gone') changed++;
      const what = checkOutcome(e);
      if (!live) return void out.write(`${e.gen}\t${e.httpStatus ?? '-'}\t${what}\t${e.url}\n`);
      const now = Date.now();
      if (now - lastDraw < 100 && done < planned) return;
      lastDraw = now;
      const head = `iteration ${e.gen}: ${done}/${planned} checked, ${changed} changed | ${what} `;
      const room = width() - head.length;
      out.write(`\r\x1b[K${head}${room >= 12 ? shorten(e.url, room) : ''}`);
      drawn = true;
    },
    /** Nothing can be checked now: live, the line says why in place; piped, a line when it starts and every 10 s. */
    onWait(w: WaitState): void {
      if (!live) return piped.onWait(w);
      out.write(`\r\x1b[K${waitLine(w, Date.now(), width())}`);
      drawn = true;
    },
    /** A wait outside the refresh's own (another process's lock on the database): live in place, piped a line. */
    onNotice(line: string): void {
      if (!live) return void out.write(`${line}\n`);
      out.write(`\r\x1b[K${shorten(line, width())}`);
      drawn = true;
    },
    /** Clear the live line before the iteration's summary is printed. */
    clear(): void {
      if (drawn) out.write('\r\x1b[K');
      drawn = false;
    },
  };
}
