import type { Db } from '../db/db.js';
import { sharedByWorkers } from '../db/db.js';
import { GroupCommit } from '../db/group-commit.js';
import { fingerprint } from '../url/key-hash.js';
import type { FrontierPage, OrderState } from '../schedule/queued-page.js';
import type { FoundPage, PageFrontier } from '../schedule/page-frontier.js';
import type { Prioritize, Rescore } from '../schedule/links/rescore.js';
import { Frontier } from './frontier.js';
import { QueuedLevels } from './queued-levels.js';
import { queuedPages, rescoreQueued } from './priorities.js';
import { PullWriter } from './pull-writer.js';
import { linkStatements, pullStatements, type LinkStatements, type PullStatements } from './pull-statements.js';

/**
 * The live crawl's queue in the store, seen through the frontier contract (schedule/page-frontier.ts):
 * each operation is the statement or function the crawl itself runs for it (pull-writer.ts's
 * inserts, raises and nearer levels, frontier.ts's pick, priorities.ts's re-score), nothing of its
 * own. A page's URL is its key. On PostgreSQL the pick is the shared crawl's (pages leased to a
 * worker are not next). Its sites must be in the store.
 */
export class StoredFrontier implements PageFrontier {
  private frontier: Frontier;
  private levels: QueuedLevels;
  private s: PullStatements;
  private links: LinkStatements;
  /** for a held origin's pages; each write committed at once */
  private writer: PullWriter;

  constructor(
    private db: Db,
    private ordered: boolean,
    readonly maxLevel: number,
  ) {
    this.frontier = new Frontier(db, ordered, sharedByWorkers(db));
    this.levels = new QueuedLevels(db);
    this.s = pullStatements(db);
    this.links = linkStatements(db, false);
    this.writer = new PullWriter(db, { group: new GroupCommit(db, 1) });
  }

  add(p: FoundPage): void {
    const { dir, fp } = fingerprint(p.url);
    const row = { site: p.siteId, key: p.url, dir, fp, url: p.url, level: p.level, on: null, at: new Date().toISOString() };
    const ins = this.ordered
      ? this.links.insertOrdered.run({
          ...row, priority: p.priority ?? null, anchor: p.anchor ?? null, cues: p.cues ?? null,
          cash: p.cash ?? null, inherit: p.inherit ?? null, dist: p.dist ?? null, inlinks: p.inlinks ?? null,
        })
      : this.links.insertPage.run(row);
    const id = Number(ins.lastInsertRowid);
    if (id !== p.id) throw new Error(`page ${p.url} stored as ${id}, not ${p.id}: pages enter in id order`);
  }

  nextPage(siteId: number, now: number = Date.now()): FrontierPage | undefined {
    return this.frontier.nextPage(siteId, this.maxLevel, now);
  }

  soonestRetry(siteId: number): number | null {
    return this.frontier.soonestRetry(siteId, this.maxLevel);
  }

  queued(siteId: number): number {
    return queuedPages(this.db, siteId);
  }

  raise(id: number, level: number): void {
    this.s.lower.get(level, null, id, level);
  }

  /** As the pull writer's lower: the nearer level waits beside the page, unless its own row must move. */
  nearer(id: number, level: number): void {
    if (!this.levels.keep(id, level, null, this.maxLevel)) this.raise(id, level);
  }

  update(id: number, priority: number, state: OrderState, level: number): void {
    const { cash, inherit, dist, inlinks } = state;
    this.s.updateOrdered.run({ cash, inherit, dist, inlinks, priority, level, on: null, id });
  }

  rescore(siteId: number, prioritize: Prioritize, which?: Rescore): void {
    rescoreQueued(this.db, siteId, prioritize, which);
  }

  /** As the pull writer's content step: the nearer level settles, the page is fetched. */
  take(id: number): void {
    this.levels.settle(id);
    this.s.content.run('done', this.s.levelOf.get(id), null, null, 0, new Date().toISOString(), id);
  }

  defer(id: number, attempts: number, firstFailedAt: number, retryAt: number): void {
    this.s.defer.run(attempts, firstFailedAt, retryAt, id);
  }

  putOff(siteId: number, origin: string, retryAt: number): void {
    this.writer.putOffOrigin(siteId, origin, retryAt);
  }
}
