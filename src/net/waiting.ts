import { counted } from '../markup/counted.js';
/**
 * A run whose only work left is pages that failed for now (pure rules): how long it waits for
 * them, what it says while it waits, and what its end says of the pages left waiting. The crawl
 * loop (crawl/crawler.ts) and the re-checks of refresh and watch (refresh/failing-for-now.ts)
 * apply them; the pages stay to be fetched whatever happens here.
 */

/**
 * How long a run with nothing to fetch but failing sites waits, counted from the last page that
 * reached its server (or the run's start). Something answered in this run: the web is there and
 * these servers are not, so a host's longest back-off is all the run gives them (more only holds a
 * finished crawl). Nothing answered: the network or a proxy may be down, and the run waits out the
 * retry span for it to come back.
 */
export function patienceMs(reachedInRun: boolean, maxBackoffMs: number, retrySpanMs: number): number {
  return reachedInRun ? maxBackoffMs : retrySpanMs;
}

/** Whether the run has waited long enough: nothing reached since `lastProgressAt` for the patience. */
export function waitedOut(now: number, lastProgressAt: number, patience: number): boolean {
  return now - lastProgressAt >= patience;
}

/** What a waiting run knows: how many sites fail, why (failureCause), the next try, when it gives up. */
export interface WaitState {
  sites: number;
  cause: string;
  /** ms to the next try; null: none before giving up */
  nextTryMs: number | null;
  givesUpAt: number;
}

/**
 * One wait of a run with only failing sites left: what it says (the failing sites, counting those
 * in flight whose host keeps failing: they are as stuck; the cause; the next try; when it gives
 * up) and how long it sleeps: until the next chance (`wait`; null: none known), never past giving
 * up, at least 1 ms.
 */
export function failingWait(
  failing: { sites: number; soonest: number | null },
  failingInFlight: number,
  cause: string | null,
  givesUpAt: number,
  wait: number | null,
  now: number,
): { state: WaitState; sleepMs: number } {
  return {
    state: { sites: failing.sites + failingInFlight, cause: cause ?? 'failed for now', nextTryMs: failing.soonest, givesUpAt },
    sleepMs: Math.max(1, Math.min(wait ?? Infinity, givesUpAt - now)),
  };
}

/**
 * `waiting: 8 sites unreachable (connection refused by proxy 127.0.0.1:1); next try in 25 s, gives
 * up at 10:42:05`; past `width` characters the cause is cut, so what happens next stays in view.
 */
export function waitLine(w: WaitState, now: number, width = Infinity): string {
  const line = waitLineOf(w, now);
  const over = line.length - width;
  if (over <= 0 || w.cause.length - over - 1 < 8) return line;
  return waitLineOf({ ...w, cause: w.cause.slice(0, w.cause.length - over - 1) + '…' }, now);
}

function waitLineOf(w: WaitState, now: number): string {
  const sites = `${w.sites} site${w.sites === 1 ? '' : 's'}`;
  // a server that answers (HTTP 503, 429) is there but failing; anything else did not get through
  const state = /^HTTP \d/.test(w.cause) ? 'failing' : 'unreachable';
  const next = w.nextTryMs === null || now + w.nextTryMs >= w.givesUpAt ? 'no try before it' : `next try in ${Math.max(1, Math.ceil(w.nextTryMs / 1000))} s,`;
  return `waiting: ${sites} ${state} (${w.cause}); ${next} gives up at ${clockTime(w.givesUpAt, now)}`;
}

/** `12 pages of 3 sites wait to be retried (earliest 14:32:10); run beebot crawl again then` */
export function waitingPagesLine(pages: number, sites: number, earliest: number | null, now: number, command = 'beebot crawl'): string {
  const when = earliest === null ? '' : ` (earliest ${clockTime(earliest, now)})`;
  return `${counted(pages, 'page')} of ${counted(sites, 'site')} ${pages === 1 ? 'waits' : 'wait'} to be retried${when}; run ${command} again ${when ? 'then' : 'later'}`;
}

/** What a run that reached no server knows at its end. */
export interface NothingReached {
  /** how long it waited, in words (`12s`); null: it did not wait */
  waited: string | null;
  cause: string | null;
  /** attempts that failed for now, and the last of them (`url: error`) */
  attempts: number;
  lastFailure: string | null;
  /** what became of the work: `nothing marked failed, the frontier is kept` */
  kept: string;
  /** the command that goes on: `beebot crawl` */
  command: string;
}

/**
 * The one line a run that reached no server ends with (exit 1): `beebot: nothing could be reached
 * in this run for 12s (connection refused by proxy 127.0.0.1:1; 6 attempts failed for now, last:
 * …); nothing marked failed, the frontier is kept: run beebot crawl again later`.
 */
export function nothingReachedLine(n: NothingReached): string {
  const waited = n.waited === null ? '' : ` for ${n.waited}`;
  return `beebot: nothing could be reached in this run${waited} (${n.cause ?? 'failed for now'}; ${counted(n.attempts, 'attempt')} failed for now, last: ${n.lastFailure}); ${n.kept}: run ${n.command} again later`;
}

/** Local wall-clock time: `14:32:10` today, `2099-01-01 00:00` another day. */
export function clockTime(at: number, now: number): string {
  const d = new Date(at);
  if (!Number.isFinite(d.getTime())) return 'never';
  const p = (n: number) => String(n).padStart(2, '0');
  const day = (x: Date) => `${x.getFullYear()}-${p(x.getMonth() + 1)}-${p(x.getDate())}`;
  const time = `${p(d.getHours())}:${p(d.getMinutes())}`;
  return day(d) === day(new Date(now)) ? `${time}:${p(d.getSeconds())}` : `${day(d)} ${time}`;
}

/** The network-level reasons a proxy in the way gives (the proxy is what refused, reset or did not answer). */
const VIA_PROXY = new Set(['refused', 'reset', 'unreachable', 'connect-timeout']);

const WORDS: Record<string, string> = {
  dns: 'host name not found',
  refused: 'connection refused',
  reset: 'connection reset',
  unreachable: 'network unreachable',
  network: 'network error',
  'connect-timeout': 'no answer to connect',
  'headers-timeout': 'no answer',
  'body-timeout': 'answer stalled',
  'page-timeout': 'answer too slow',
};

/**
 * A failure for now in a few words: the fetch log's `reason: detail` (or a robots.txt that could
 * not be read for it), or the HTTP status; with a proxy, a connection it refused is the proxy's.
 */
export function failureCause(error: string | null, httpStatus: number | null, proxy: string | null): string {
  // the inner error may hold parentheses of its own: 'proxy refused the tunnel (502)'
  const robots = error === null ? null : /^robots\.txt unreachable \((.*)\)(?=: |$)/.exec(error);
  const inner = robots ? robots[1]! : error;
  const status = httpStatus ?? (inner !== null ? Number(/^HTTP (\d{3})\b/.exec(inner)?.[1] ?? NaN) : NaN);
  if (Number.isFinite(status)) return `HTTP ${status}`;
  if (inner === null) return 'failed';
  const reason = inner.split(':', 1)[0]!.trim();
  const words = WORDS[reason] ?? reason;
  if (proxy !== null && VIA_PROXY.has(reason)) {
    let at = proxy;
    try {
      at = new URL(proxy).host;
    } catch {
      // a proxy the flag's check let through: shown as given
    }
    return `${words} by proxy ${at}`;
  }
  return words;
}
