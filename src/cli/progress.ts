import type { PullEvent, SiteCounts, StartEvent } from '../crawl/run-report.js';
import { screen } from '../markup/terminal-text.js';
import { waitLine, type WaitState } from '../net/waiting.js';
import { grouped } from '../markup/counted.js';

/** What the live display shows; plain data, so the layout is a pure function (tested directly). */
export interface ProgressState {
  used: number;
  budget: number | null;
  /** pages per second over the last seconds, null before there is a rate */
  rate: number | null;
  distinctUrls: number;
  distinctHosts: number;
  sites: SiteCounts;
  /** the last page: who, level, what it gave, its URL */
  who: string;
  level: number;
  what: string;
  url: string;
}

const BAR = 20;

/** The two lines of the live display, each at most `width` characters. */
export function progressLines(p: ProgressState, width: number): [string, string] {
  const parts: string[] = [];
  if (p.budget !== null) {
    const f = Math.min(1, p.used / p.budget);
    const full = Math.round(f * BAR);
    parts.push(`[${'#'.repeat(full)}${'.'.repeat(BAR - full)}] ${p.used}/${p.budget} ${Math.floor(f * 100)}%`);
  } else {
    parts.push(`${p.used} pages (no budget)`);
  }
  parts.push(p.rate === null ? '- pages/s' : `${p.rate.toFixed(1)} pages/s`);
  if (p.budget !== null) parts.push(`ETA ${p.rate ? duration((p.budget - p.used) / p.rate) : '-'}`);
  parts.push(`external: ${p.distinctUrls} URLs, ${p.distinctHosts} hosts`);
  const line1 = fit(parts.join('  '), width);
  const s = p.sites;
  // The site's name and the page's error are others' text (a server's Location header): screened.
  const head = `sites ${s.crawling} crawling, ${s.exhausted} exhausted, ${s.waiting ? `${s.waiting} waiting, ` : ''}${s.capped ? `${s.capped} capped, ` : ''}${s.unavailable} n/a | ${screen(p.who)} L${p.level} ${screen(p.what)} `;
  const room = width - head.length;
  const line2 = room >= 12 ? head + shorten(p.url, room) : fit(head.trimEnd(), width);
  return [line1, line2];
}

/** '1h02m', '3m05s', '42s'. */
export function duration(seconds: number): string {
  const t = Math.max(0, Math.round(seconds));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = t % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** A URL cut in the middle to `width` characters: its start (scheme, host) and its end stay. */
export function shorten(url: string, width: number): string {
  if (url.length <= width) return url;
  const keep = width - 1;
  const head = Math.ceil(keep / 2);
  return url.slice(0, head) + '…' + url.slice(url.length - (keep - head));
}

function fit(line: string, width: number): string {
  return line.length <= width ? line : line.slice(0, Math.max(0, width - 1)) + '…';
}

/** Pages per second over a sliding window of recent pulls. */
export class RateWindow {
  private samples: [number, number][] = [];
  constructor(private windowMs = 10_000) {}

  add(now: number, total: number): void {
    this.samples.push([now, total]);
    while (this.samples.length > 2 && now - this.samples[0]![0] > this.windowMs) this.samples.shift();
  }

  rate(): number | null {
    if (this.samples.length < 2) return null;
    const [t0, n0] = this.samples[0]!;
    const [t1, n1] = this.samples[this.samples.length - 1]!;
    return t1 > t0 ? ((n1 - n0) * 1000) / (t1 - t0) : null;
  }
}

/** A pull's outcome in a few words: '+3 ext' (its reward), 'not-html', 'error: HTTP 404'. */
export function outcome(e: Pick<PullEvent, 'status' | 'reward' | 'error'>): string {
  if (e.status === 'done') return `+${e.reward} ext`;
  return e.error ? `${e.status}: ${e.error}` : e.status;
}

/** A piped run that waits repeats its waiting line this often (a terminal shows it in place). */
const WAIT_LINE_EVERY_MS = 10_000;

/**
 * Waiting lines (net/waiting.ts waitLine) where nothing is redrawn (a pipe, a log): the first of a
 * wait at once, then one every 10 s while it lasts.
 */
export function waitLines(out: NodeJS.WritableStream = process.stderr) {
  let written: number | null = null;
  /** what the last line said fails, and whether the run went on since */
  let said: string | null = null;
  let wentOn = false;
  return {
    onWait(w: WaitState): void {
      const now = Date.now();
      const what = `${w.sites} ${w.cause}`;
      // again after its interval, or at once when the run went on and something else fails now
      // (between two pulls of a slow crawl the same wait is not repeated pull after pull)
      if (written !== null && now - written < WAIT_LINE_EVERY_MS && !(wentOn && what !== said)) return;
      written = now;
      said = what;
      wentOn = false;
      out.write(waitLine(w, now) + '\n');
    },
    /** The run went on: its next wait is told at once when it says something new. */
    over(): void {
      wentOn = true;
    },
  };
}

/** 'resuming: 2,933 of 5,000 pages done' when the crawl had fetched pages before; null for a new crawl. */
export function resumeLine(done: number, budget: number | null): string | null {
  if (done === 0) return null;
  const n = grouped;
  return `resuming: ${n(done)}${budget !== null ? ` of ${n(budget)}` : ''} pages done`;
}

/**
 * Live on a terminal: two lines redrawn in place at most ten times a second. Plain tab-separated
 * lines, one per page, when stderr is piped, and also when CI, TERM=dumb or NO_COLOR ask for no
 * animation. Our own renderer: two lines and a throttle are less code than adapting a progress-bar
 * library's fixed layout, and it keeps the tested layout a pure function.
 */
export function progressReporter(o: { budget: number | null; out?: NodeJS.WriteStream }) {
  const out = o.out ?? process.stderr;
  const env = process.env;
  const live = Boolean(out.isTTY) && !env.CI && env.TERM !== 'dumb' && env.NO_COLOR === undefined;
  const rate = new RateWindow();
  let drawn = false;
  let lastDraw = 0;
  let last: (Omit<ProgressState, 'sites'> & { sites: () => SiteCounts }) | null = null;
  /** while no page can be fetched: the line that says why (net/waiting.ts waitLine), in place of the last page's */
  let waiting: string | null = null;
  const piped = waitLines(out);
  const width = () => Math.max(20, (out.columns || 100) - 1);
  const draw = () => {
    if (!last) return;
    const [a, b] = progressLines({ ...last, sites: last.sites(), rate: rate.rate() }, width());
    out.write(`${drawn ? '\x1b[1A\r' : '\r'}\x1b[K${a}\n\x1b[K${waiting === null ? b : shorten(waiting, width())}`);
    drawn = true;
  };
  return {
    live,
    /** Before the first pull: a crawl that goes on says so, and the live display is drawn at once. */
    onStart(e: StartEvent): void {
      const line = resumeLine(e.totalPulls, o.budget);
      if (line !== null) out.write(line + '\n');
      if (!live) return;
      last = { used: e.totalPulls, budget: o.budget, rate: null, distinctUrls: e.distinctUrls, distinctHosts: e.distinctHosts, sites: e.siteCounts, who: '-', level: 0, what: 'starting', url: '' };
      lastDraw = Date.now();
      draw();
    },
    /** Nothing can be fetched now: live, the second line says why until the next page; piped, a line when it starts and every 10 s. */
    onWait(w: WaitState): void {
      if (!live) return piped.onWait(w);
      const line = waitLine(w, Date.now(), width());
      if (line === waiting) return;
      waiting = line;
      draw();
    },
    /** A wait outside the crawl's own (another process's lock on the database): live in the wait's place, piped a line. */
    onNotice(line: string): void {
      if (!live || !last) return void out.write(`${drawn ? '\n' : ''}${line}\n`);
      waiting = line;
      draw();
    },
    onPull(e: PullEvent): void {
      waiting = null;
      piped.over();
      const what = outcome(e);
      const who = e.site.short ?? `site ${e.site.id}`;
      if (!live) {
        out.write(`${e.totalPulls}\t${who}\t${e.level}\t${e.httpStatus ?? '-'}\t${what}\t${e.url}\n`);
        return;
      }
      const now = Date.now();
      rate.add(now, e.totalPulls);
      last = { used: e.totalPulls, budget: o.budget, rate: null, distinctUrls: e.distinctUrls, distinctHosts: e.distinctHosts, sites: e.siteCounts, who, level: e.level, what, url: e.url };
      if (now - lastDraw >= 100) {
        lastDraw = now;
        draw();
      }
    },
    /**
     * Draw the last state and leave the cursor below the display. Not after Ctrl-C: the stop
     * message stands below the display then, and a redraw would overwrite it.
     */
    finish(redraw: boolean): void {
      if (redraw && live) draw();
      if (drawn) out.write('\n');
    },
  };
}
