import type { Db } from '../db/db.js';
import { inJsonIds, typed } from '../db/dialect.js';
import { oneAtATime } from '../db/run-lock.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import type { Validators } from '../net/fetch-page.js';
import type { CheckCost } from './check-cost.js';
import type { ValueFunction } from './content-value.js';
import type { Candidate, Planned, ScheduleName } from './schedules.js';
import { observations } from './change-rate.js';

/** What a refresh did with a page (refreshes.action; see src/refresh/action.ts), or 'skipped' (robots.txt). */
export type RefreshLogAction = 'keep' | 'replace' | 'gone' | 'retry' | 'skipped';

/** Statuses of the pages a refresh re-checks: the ones that were read and not redirected, and the gone (they may come back). */
export const REFRESHED_STATUSES = ['done', 'not-html', 'error', 'gone'] as const;
const statuses = REFRESHED_STATUSES.map((x) => `'${x}'`).join(', ');

// refresh_runs.gen is max + 1: two PostgreSQL workers could read the same max, so the read and the
// insert are one step under this lock (oneAtATime).
const GEN_LOCK = 0x6265_6572; // 'beer'

/** One row of the refresh log, with what the check found. */
export interface LogRow {
  action: RefreshLogAction;
  httpStatus: number | null;
  error: string | null;
  validators: Validators;
  bytes?: number;
  ms?: number;
  estMs?: number;
  changed?: number;
  linksAdded?: number;
  linksGone?: number;
  /** the page's scent after the check (beebot refresh) */
  scent?: number;
}

/** A page of an iteration's plan, with its place in it. */
export interface PlannedPage extends FrontierPage {
  estMs: number;
  foundOn: number | null;
  rank: number;
}

/** The settings one `beebot refresh` iteration runs under (refresh_runs). */
export interface IterationSettings {
  schedule: ScheduleName;
  sites: number[] | null;
  budgetMs: number;
  delta: number;
  value: ValueFunction;
  cost: CheckCost;
}

/**
 * The refresh log. A run is a generation: `crawl --refresh` re-checks every page
 * once per generation (kind 'all'); `beebot refresh` runs iterations (kind 'scent'), each with
 * its plan. `refreshes` has one row per page checked, once per generation, with the validators
 * (ETag, Last-Modified) now in force. What a run has checked is that log, not a column of pages,
 * so a 304 changes no row of pages, edges or the link tables, and a stopped run resumes with the
 * pages it has no row for.
 */
export class RefreshLog {
  private s;

  constructor(private db: Db, private now: () => number = Date.now) {
    this.s = {
      open: db.prepare(`SELECT gen FROM refresh_runs WHERE finished_at IS NULL AND kind = ? ORDER BY gen LIMIT 1`).pluck(),
      start: db.prepare(
        `INSERT INTO refresh_runs (gen, started_at, kind, schedule, sites, budget_ms, delta, value, cost_a, cost_b)
         VALUES ((SELECT coalesce(max(gen), 0) + 1 FROM refresh_runs), ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING gen`,
      ).pluck(),
      run: db.prepare(`SELECT schedule, sites, budget_ms AS budgetMs, delta, value, cost_a AS a, cost_b AS b FROM refresh_runs WHERE gen = ?`),
      finish: db.prepare(`UPDATE refresh_runs SET finished_at = ? WHERE gen = ?`),
      // Page order (discovery order) so a resumed run goes on where the stopped one was.
      next: db.prepare(
        `SELECT p.id, p.site_id AS siteId, p.url, p.level FROM pages p
          WHERE p.status IN (${statuses}) AND p.id > ?
            AND NOT EXISTS (SELECT 1 FROM refreshes r WHERE r.gen = ? AND r.page_id = p.id)
          ORDER BY p.id LIMIT 1`,
      ),
      left: db.prepare(
        `SELECT count(*) FROM pages p WHERE p.status IN (${statuses})
            AND NOT EXISTS (SELECT 1 FROM refreshes r WHERE r.gen = ? AND r.page_id = p.id)`,
      ).pluck(),
      lastRefresh: db.prepare(`SELECT etag, last_modified AS lastModified FROM refreshes WHERE page_id = ? AND action <> 'skipped' ORDER BY seq DESC LIMIT 1`),
      lastFetch: db.prepare(`SELECT etag, last_modified AS lastModified FROM fetches WHERE page_id = ? ORDER BY seq DESC LIMIT 1`),
      log: db.prepare(
        `INSERT INTO refreshes (gen, page_id, action, http_status, error, etag, last_modified, at, bytes, ms, est_ms, changed, links_added, links_gone, scent)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      plan: db.prepare(`INSERT INTO refresh_plan (gen, rank, page_id, est_ms) VALUES (?, ?, ?, ?)`),
      planned: db.prepare(
        `SELECT p.id, p.site_id AS siteId, p.url, p.level, p.found_on AS foundOn, x.est_ms AS estMs, x.rank FROM refresh_plan x JOIN pages p ON p.id = x.page_id
          WHERE x.gen = ? AND x.rank > ? AND NOT EXISTS (SELECT 1 FROM refreshes r WHERE r.gen = x.gen AND r.page_id = x.page_id)
          ORDER BY x.rank LIMIT 1`,
      ),
      planLeft: db.prepare(
        `SELECT count(*) FROM refresh_plan x WHERE x.gen = ? AND NOT EXISTS (SELECT 1 FROM refreshes r WHERE r.gen = x.gen AND r.page_id = x.page_id)`,
      ).pluck(),
      scent: db.prepare(`SELECT coalesce(scent, 0) FROM pages WHERE id = ?`).pluck(),
      setScent: db.prepare(`UPDATE pages SET scent = ? WHERE id = ?`),
      addScent: db.prepare(`UPDATE pages SET scent = coalesce(scent, 0) + ? WHERE id = ?`),
      // every page's reads by the crawl, and its checks that got an answer: the change-rate history
      reads: db.prepare(`SELECT page_id AS id, at FROM fetches WHERE at IS NOT NULL`),
      checks: db.prepare(
        `SELECT page_id AS id, at, CASE WHEN changed > 0 OR action = 'replace' THEN 1 ELSE 0 END AS x
           FROM refreshes WHERE action IN ('keep', 'replace', 'gone') ORDER BY page_id, seq`,
      ),
    };
  }

  nowMs(): number {
    return this.now();
  }

  /** A new refresh_runs row (max(gen) + 1), its gen. */
  private startRun(...args: unknown[]): number {
    return oneAtATime(this.db, GEN_LOCK, () => this.s.start.get(...args) as number);
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** The `crawl --refresh` generation under way, or a new one. */
  generation(): { gen: number; resumed: boolean } {
    const open = this.s.open.get('all') as number | undefined;
    if (open !== undefined) return { gen: open, resumed: true };
    return { gen: this.startRun(this.iso(), 'all', null, null, null, null, null, null, null), resumed: false };
  }

  /** The `beebot refresh` iteration left open by a stopped run, with its settings. */
  openIteration(): { gen: number; settings: IterationSettings } | undefined {
    const gen = this.s.open.get('scent') as number | undefined;
    if (gen === undefined) return undefined;
    const r = this.s.run.get(gen) as { schedule: ScheduleName; sites: string | null; budgetMs: number; delta: number; value: ValueFunction; a: number; b: number };
    return {
      gen,
      settings: { schedule: r.schedule, sites: r.sites === null ? null : (JSON.parse(r.sites) as number[]), budgetMs: r.budgetMs, delta: r.delta, value: r.value, cost: { a: r.a, b: r.b, n: 0 } },
    };
  }

  /** Start an iteration with its plan; pages reaching refreshing for the first time get their first scent. One transaction. */
  startIteration(x: IterationSettings, plan: readonly Planned[], firstScents: ReadonlyMap<number, number>): number {
    return this.db.transaction(() => {
      for (const [id, scent] of firstScents) this.s.setScent.run(scent, id);
      const gen = this.startRun(this.iso(), 'scent', x.schedule, x.sites === null ? null : JSON.stringify(x.sites), x.budgetMs, x.delta, x.value, x.cost.a, x.cost.b);
      plan.forEach((p, rank) => this.s.plan.run(gen, rank, p.id, p.estMs));
      return gen;
    })();
  }

  /** The next page of an iteration's plan not checked yet, after the plan's `afterRank`-th (-1: from the first). */
  nextPlanned(gen: number, afterRank = -1): PlannedPage | undefined {
    return this.s.planned.get(gen, afterRank) as PlannedPage | undefined;
  }

  planSize(gen: number): number {
    return this.db.prepare('SELECT count(*) FROM refresh_plan WHERE gen = ?').pluck().get(gen) as number;
  }

  planLeft(gen: number): number {
    return this.s.planLeft.get(gen) as number;
  }

  /** End an iteration: every candidate page (of its sites) gains ΔS, in the transaction that closes it. */
  finishIteration(gen: number, x: IterationSettings): void {
    this.db.transaction(() => {
      if (x.delta !== 0) {
        this.db.prepare(
          `UPDATE pages SET scent = scent + ? WHERE scent IS NOT NULL ${x.sites === null ? '' : `AND ${inJsonIds(this.db, 'site_id', '?')}`}`,
        ).run(...(x.sites === null ? [x.delta] : [x.delta, JSON.stringify(x.sites)]));
      }
      this.finish(gen);
    })();
  }

  /**
   * The pages an iteration chooses from, with what the schedules read: the read pages of the
   * sites (gone ones too: they may come back), and the pages a refresh found since refreshing
   * began, not read yet, within the crawl's level limit.
   */
  candidates(sites: number[] | null, maxLevel: number | null): (Candidate & { textSize: number | null; unscented: boolean })[] {
    const first = this.db.prepare(`SELECT min(started_at) FROM refresh_runs`).pluck().get() as string | null;
    const siteCond = sites === null ? '' : `AND ${inJsonIds(this.db, 'p.site_id', '@sites')}`;
    // PostgreSQL cannot tell the type of a parameter only tested for NULL: typed there.
    const [firstP, maxLevelP] = [typed(this.db, '@first', 'text'), typed(this.db, '@maxLevel', 'bigint')];
    // A check's x: content changed, or the page re-read. A page already gone answering 404 again
    // (changed 0) is no change, or change-rate would think dead pages change at every check and
    // revisit them first. Checks that got no answer (retry, skipped) observed nothing.
    const rows = this.db.prepare(
      `SELECT p.id, p.status, p.bytes, p.scent, p.text_size AS textSize, p.fetched_at AS fetchedAt,
              (SELECT max(at) FROM refreshes r WHERE r.page_id = p.id AND r.action IN ('keep', 'replace', 'gone')) AS last,
              (${firstP} IS NOT NULL AND p.found_at >= ${firstP} AND NOT EXISTS (SELECT 1 FROM fetches f WHERE f.page_id = p.id)) AS byRefresh
         FROM pages p
        WHERE (p.status IN (${statuses})
               OR (p.status = 'queued' AND ${firstP} IS NOT NULL AND p.found_at >= ${firstP} AND (${maxLevelP} IS NULL OR p.level <= ${maxLevelP})))
          ${siteCond}
        ORDER BY p.id`,
    ).all({ first, maxLevel, sites: sites === null ? null : JSON.stringify(sites) }) as {
      id: number; status: string; bytes: number | null; scent: number | null; textSize: number | null; fetchedAt: string | null;
      last: string | null; byRefresh: number | boolean;
    }[];
    const reads = new Map<number, number[]>();
    for (const f of this.s.reads.all() as { id: number; at: string }[]) push(reads, f.id, Date.parse(f.at));
    const checks = new Map<number, { at: number; changed: boolean }[]>();
    for (const c of this.s.checks.all() as { id: number; at: string; x: number }[]) push(checks, c.id, { at: Date.parse(c.at), changed: Number(c.x) === 1 });
    return rows.map((r) => {
      const read = r.status !== 'queued';
      const last = r.last ?? r.fetchedAt;
      // A page a refresh found was first read by a refresh: that read is no re-check, it starts the history.
      const own = checks.get(r.id) ?? [];
      const [firstCheck, ...later] = own;
      const history = r.byRefresh && firstCheck ? observations([firstCheck.at], later) : observations(reads.get(r.id) ?? [], own);
      return {
        id: r.id,
        bytes: read ? (r.bytes ?? 0) : null,
        scent: r.scent ?? 0,
        last: last === null ? null : Date.parse(last),
        history,
        textSize: r.textSize,
        unscented: r.scent === null,
      };
    });
  }

  /** (bytes, ms) of the latest crawl fetches and refresh checks that got an answer: what the check-time model is fitted on. */
  costSamples(limit = 2000): { bytes: number; ms: number }[] {
    // aliased subqueries: PostgreSQL before 16 requires them
    return this.db.prepare(
      `SELECT bytes, ms FROM (
         SELECT bytes, ms, at FROM (SELECT bytes, ms, at FROM fetches WHERE bytes IS NOT NULL AND http_status IS NOT NULL ORDER BY seq DESC LIMIT @limit) f
         UNION ALL
         SELECT bytes, ms, at FROM (SELECT bytes, ms, at FROM refreshes WHERE ms IS NOT NULL AND http_status IS NOT NULL ORDER BY seq DESC LIMIT @limit) r
       ) s ORDER BY at DESC LIMIT @limit`,
    ).all({ limit }) as { bytes: number; ms: number }[];
  }

  /** The page's scent now (0 before its first). */
  scent(pageId: number): number {
    return this.s.scent.get(pageId) as number;
  }

  setScent(pageId: number, scent: number): void {
    this.s.setScent.run(scent, pageId);
  }

  addScent(pageId: number, amount: number): void {
    this.s.addScent.run(amount, pageId);
  }

  /** The next page of generation `gen` not checked yet, after page id `after`. */
  next(gen: number, after: number): FrontierPage | undefined {
    return this.s.next.get(after, gen) as FrontierPage | undefined;
  }

  left(gen: number): number {
    return this.s.left.get(gen) as number;
  }

  finish(gen: number): void {
    this.s.finish.run(this.iso(), gen);
  }

  /** The validators of the page's last answer: its last refresh, else its last crawl fetch. */
  validators(pageId: number): Validators {
    const v = (this.s.lastRefresh.get(pageId) ?? this.s.lastFetch.get(pageId)) as Validators | undefined;
    return { etag: v?.etag ?? null, lastModified: v?.lastModified ?? null };
  }

  log(gen: number, pageId: number, r: LogRow): void {
    this.s.log.run(
      gen, pageId, r.action, r.httpStatus, r.error, r.validators.etag, r.validators.lastModified, this.iso(),
      r.bytes ?? null, r.ms ?? null, r.estMs ?? null, r.changed ?? null, r.linksAdded ?? null, r.linksGone ?? null, r.scent ?? null,
    );
  }
}

function push<T>(m: Map<number, T[]>, k: number, v: T): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}
