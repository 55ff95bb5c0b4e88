import { Scheduler } from '../schedule/scheduler.js';
import type { SiteQueues } from '../schedule/page-choice.js';
import { sharedByWorkers, type Db } from '../db/db.js';
import { endIfFrozen, keepReconnecting } from '../db/lost-connection.js';
import { PolitenessWriter } from '../store/politeness.js';
import { rescoreQueued } from '../store/priorities.js';
import { PullWriter } from '../store/pull-writer.js';
import type { Settings } from '../store/settings.js';
import { dueAgain } from '../store/frontier.js';
import { settleQueuedLevels } from '../store/queued-levels.js';
import { listSites, recountRewards, reopenSites, siteScopes, type Site } from '../store/sites.js';
import { loadParamRules } from '../store/param-rules.js';
import type { Clock } from '../time/clock.js';
import { PageReader } from '../net/page-reader.js';
import { HostHolds } from '../net/host-holds.js';
import { queuedFate } from '../page/link-fate.js';
import { SoloCoordinator, type Coordinator } from './coordinator.js';
import { SharedCoordinator } from './shared-coordinator.js';
import { heldHosts } from './held-hosts.js';

/** What a run is built from, besides the store. */
export interface RunSetup {
  settings: Settings;
  /** Store links again that a user deleted (`links delete`). */
  allowReadd?: boolean;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  /** Where the stored times come from (found_at, fetched_at, the pull log); default the real clock. Benches on the changing web crawl in its virtual time. */
  clock?: Clock;
}

/** The parts a run's workers share: what picks, what agrees with other processes, what fetches, what stores. */
export interface RunParts {
  scheduler: Scheduler<Site>;
  coordinator: Coordinator;
  reader: PageReader;
  writer: PullWriter;
  hostsLog: PolitenessWriter;
  holds: HostHolds;
}

/**
 * A run's parts, built from the settings and the store as it stands; the store is readied for a
 * new run on the way and the crawl so far is learned (coordinator.start), so the scheduler is open.
 */
export async function openRun(db: Db, o: RunSetup): Promise<RunParts> {
  const s = o.settings;
  keepReconnecting(db, s['db-reconnect']);
  endIfFrozen(db, s['db-reconnect']);
  // A new run: pages that failed for now are due again, and sites Not Available only for the last
  // run (their start page failed for now) are tried again; `seeds retry` reopens any.
  dueAgain(db);
  reopenSites(db, null);
  // The sites' reward sums follow the mode in force (a database may change it between runs).
  recountRewards(db, s.reward);
  // read once: 30,000 sites' rows take a tenth of a second
  const sites = listSites(db);
  const scheduler = new Scheduler(sites, s);
  // A host held for the run puts its pages off past anything the run waits for: the next run asks.
  const holds = new HostHolds(Math.max(s['retry-span'], s['max-backoff']) + 1000);
  const writer = new PullWriter(db, {
    allowReadd: o.allowReadd ?? false, maxQueryVariants: s['max-query-variants'], reward: s.reward, order: scheduler.order ?? undefined,
    indexText: s['index-text'] === 'yes', now: o.clock ? () => o.clock!.now() : undefined, maxLevel: s['max-level'],
  });
  settleQueuedLevels(db, s['max-level'], scheduler.order === null || scheduler.order.tracksKnown);
  // PostgreSQL: this process is one worker of a crawl others may share.
  const coordinator: Coordinator = sharedByWorkers(db)
    ? new SharedCoordinator(db, s, scheduler, writer)
    : new SoloCoordinator(db, s, scheduler);
  const hostsLog = new PolitenessWriter(db);
  const gate = coordinator.gate;
  const reader = await PageReader.open({
    settings: s, scopes: siteScopes(db, s, sites), params: loadParamRules(db), resolve: o.resolve, proxy: o.proxy, gate, analysers: s.concurrency, focus: s.focus !== null,
    onRobots: (r) => {
      const host = new URL(r.origin).host;
      const summary = r.rules.kind === 'parsed' ? r.rules.summary : r.rules.reason;
      const asked = r.rules.kind === 'parsed' && r.rules.crawlDelay !== null ? r.rules.crawlDelay * 1000 : null;
      hostsLog.robots(host, gate.delayOf(host), asked, r.clamped, summary);
    },
  });
  coordinator.start();
  const queues: SiteQueues = {
    nextPage: (id, maxLevel) => coordinator.frontier.nextPage(id, maxLevel),
    soonestRetry: (id, maxLevel) => coordinator.frontier.soonestRetry(id, maxLevel),
    rescore: (id, prioritize, which) => rescoreQueued(db, id, prioritize, which),
    skip: (page, status, why) => writer.skip(page, status, why),
  };
  const solo = s.concurrency <= 1 && coordinator.alone;
  const held = heldHosts(holds, gate, writer, (siteId) => scheduler.state.sites.get(siteId)!.url, solo);
  const open = () => scheduler.open(queues, queuedFate, (host) => coordinator.hostWait(host), solo, held);
  // Opening scores every site's unscored pages (each start page): one transaction, not one a site
  // (at 30,000 sites their commits were most of the start). Workers sharing a PostgreSQL crawl
  // keep one a site: one long transaction would hold rows the others write.
  if (sharedByWorkers(db)) open();
  else db.transaction(open)();
  return { scheduler, coordinator, reader, writer, hostsLog, holds };
}

/** What is left in memory is stored (and indexed), and the reader's connections and analysers close. */
export async function closeRun({ writer, reader }: RunParts): Promise<void> {
  writer.group.flush();
  writer.text?.catchUp(); // anchors of links found after their page was indexed
  await reader.close();
}
