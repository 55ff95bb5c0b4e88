import type { Db } from '../db/db.js';
import { RefreshLog, type IterationSettings, type PlannedPage } from './refresh-log.js';
import type { Settings } from '../store/settings.js';
import { realClock, type Clock } from '../time/clock.js';
import { fitCheckCost, type CheckCost } from './check-cost.js';
import { contentValue, type ValueFunction } from './content-value.js';
import { PageChecker, type CheckOutcome } from './page-check.js';
import { FailingForNow, type FailuresForNow } from './failing-for-now.js';
import type { WaitState } from '../net/waiting.js';
import { planIteration, type ScheduleName } from './schedules.js';
import { afterCheck, initialScent } from './scent.js';

export interface IterationOptions {
  settings: Settings;
  schedule: ScheduleName;
  /** site ids; null: all */
  sites: number[] | null;
  /** the check time an iteration may spend, by the cost model (ms) */
  budgetMs: number;
  /** the time from one iteration's start to the next's (ms); null: back to back */
  everyMs: number | null;
  /** iterations to run (null: until `until` or stopped) and the time after which none starts */
  iterations: number | null;
  until: number | null;
  delta: number;
  value: ValueFunction;
  /** the check-time model; null: fitted on the fetch log at each iteration */
  cost: CheckCost | null;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  signal: AbortSignal;
  clock?: Clock;
  /** `optimal` (benches only): each page's check frequency, given the known change rates */
  frequencies?: (cands: { id: number; bytes: number | null; textSize: number | null }[], cost: CheckCost) => ReadonlyMap<number, number>;
  /** an iteration begins (or resumes): its plan's size, and how much of it was checked before */
  onStart?: (e: { gen: number; planned: number; checked: number }) => void;
  onCheck?: (e: { gen: number; url: string } & CheckOutcome) => void;
  onIteration?: (e: IterationSummary) => void;
  /** Nothing can be checked now: why, and what happens next (called at each wait). */
  onWait?: (w: WaitState) => void;
}

export interface IterationsRun {
  iterations: IterationSummary[];
  /** waiting: only pages that failed for now were left, and the run waited for them as long as it may */
  reason: 'done' | 'interrupted' | 'waiting';
  failures: FailuresForNow;
}

export interface IterationSummary {
  gen: number;
  resumed: boolean;
  settings: IterationSettings;
  planned: number;
  checked: number;
  estMs: number;
  counts: Record<CheckOutcome['action'], number>;
  changed: number;
  linksAdded: number;
  linksGone: number;
  /** finished: every planned page checked, ΔS given */
  finished: boolean;
}

/**
 * `beebot refresh`: iterations of S.C.E.N.T. (or a baseline schedule) over the read pages of the
 * chosen sites. Each iteration plans the pages to check under its time budget (schedules.ts),
 * checks them (page-check.ts), halving each one's scent and adding the value of what it found
 * changed (scent.ts), then gives every page ΔS. An iteration's plan and settings are stored when
 * it starts, so a stopped one resumes exactly where it was; the next starts `every` after the
 * start of the one before. While no server has answered, a page whose check failed for now is put
 * off and tried again (failing-for-now.ts); when nothing answers for the retry span, the run ends
 * with the iteration open.
 */
export async function runIterations(db: Db, o: IterationOptions): Promise<IterationsRun> {
  const clock = o.clock ?? realClock;
  const log = new RefreshLog(db, () => clock.now());
  const checker = await PageChecker.open(db, { settings: o.settings, resolve: o.resolve, proxy: o.proxy, clock });
  const failing = new FailingForNow<PlannedPage>(checker, { settings: o.settings, proxy: o.proxy, clock, onWait: o.onWait });
  const out: IterationSummary[] = [];
  try {
    for (let i = 0; o.iterations === null || i < o.iterations; i++) {
      if (o.signal.aborted) return { iterations: out, reason: 'interrupted', failures: failing.summary() };
      const open = log.openIteration();
      if (!open && o.until !== null && clock.now() >= o.until) break;
      const started = clock.now();
      const { gen, settings, planned } = open ? { ...open, planned: log.planLeft(open.gen) } : plan(log, o);
      const sum: IterationSummary = {
        gen, resumed: open !== undefined, settings, planned, checked: 0, estMs: 0, changed: 0, linksAdded: 0, linksGone: 0, finished: false,
        counts: { keep: 0, replace: 0, gone: 0, retry: 0, skipped: 0 },
      };
      o.onStart?.({ gen, planned: open ? log.planSize(gen) : planned, checked: open ? log.planSize(gen) - planned : 0 });
      let waitedOut = false;
      for (let afterRank = -1; ; ) {
        const page = await failing.next(() => {
          const p = log.nextPlanned(gen, afterRank);
          if (p) afterRank = p.rank;
          return p;
        }, o.signal);
        waitedOut = page === 'waited-out';
        if (page === undefined || typeof page === 'string') break; // 'stopped': told below
        const was = log.scent(page.id);
        const r = await checker.check(page, log.validators(page.id), o.signal, (c) => {
          // A page read for the first time is fresh: its scent starts at 0, and what it held is the
          // harvest of the page that linked it (a hub's scent is what its new pages bring). Scored as
          // its own harvest, every new item page outranked the older pages and was re-read in vain
          // (bench:refresh: a third of the checks).
          const scent = c.firstRead ? 0 : afterCheck(was, c.changed, settings.value);
          log.log(gen, page.id, { ...c, estMs: page.estMs, scent });
          log.setScent(page.id, scent);
          if (c.firstRead && page.foundOn !== null) log.addScent(page.foundOn, contentValue(c.changed, settings.value));
        });
        if (r === 'aborted') break;
        if ('unreached' in r) {
          failing.put(page, r);
          continue;
        }
        sum.checked++;
        sum.estMs += page.estMs;
        sum.counts[r.action]++;
        sum.changed += r.changed;
        sum.linksAdded += r.linksAdded;
        sum.linksGone += r.linksGone;
        o.onCheck?.({ gen, url: page.url, ...r });
      }
      if (o.signal.aborted || waitedOut) {
        o.onIteration?.(sum);
        out.push(sum);
        return { iterations: out, reason: waitedOut ? 'waiting' : 'interrupted', failures: failing.summary() };
      }
      checker.writer.group.flush();
      log.finishIteration(gen, settings);
      sum.finished = true;
      o.onIteration?.(sum);
      out.push(sum);
      const last = o.iterations !== null && i + 1 >= o.iterations;
      if (!last && o.everyMs !== null) {
        const next = started + o.everyMs;
        if (o.until !== null && next > o.until) break;
        try {
          await clock.sleep(Math.max(0, next - clock.now()), o.signal);
        } catch {
          return { iterations: out, reason: 'interrupted', failures: failing.summary() };
        }
      }
    }
  } finally {
    await checker.close();
  }
  return { iterations: out, reason: 'done', failures: failing.summary() };
}

/** Plan a new iteration: the candidates, the cost model, the schedule's choice; stored at once. */
function plan(log: RefreshLog, o: IterationOptions): { gen: number; settings: IterationSettings; planned: number } {
  const cost = o.cost ?? fitCheckCost(log.costSamples());
  const settings: IterationSettings = { schedule: o.schedule, sites: o.sites, budgetMs: o.budgetMs, delta: o.delta, value: o.value, cost };
  const cands = log.candidates(o.sites, o.settings['max-level']);
  // Pages meeting refreshing for the first time: their scent starts at the value of their content.
  const first = new Map<number, number>();
  for (const c of cands) {
    if (!c.unscented || c.bytes === null) continue;
    c.scent = initialScent(c.textSize, o.value);
    first.set(c.id, c.scent);
  }
  const frequencies = o.frequencies?.(cands, cost);
  const chosen = planIteration(cands, frequencies ? 'optimal' : o.schedule, { budgetMs: o.budgetMs, cost, now: log.nowMs(), frequencies });
  return { gen: log.startIteration(settings, chosen, first), settings, planned: chosen.length };
}
