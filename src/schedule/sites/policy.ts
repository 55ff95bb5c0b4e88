/**
 * The seam between the crawler and its scheduler. A policy is a pure function: given plain
 * per-site statistics and the history of pulls, it names the site to crawl next. It never
 * sees the network or the database, so every policy is tested on hand-made numbers, and a
 * resumed crawl (which rebuilds the same input from the database) makes the same choices.
 */
export interface Arm {
  id: number;
  /** Pages pulled so far, in-flight ones included (t(i)). */
  pulls: number;
  /** Sum of rewards of completed pulls (s(i)). */
  rewardSum: number;
  /** Largest single-page reward seen on this site. */
  rewardMax: number;
  /** Rewards of this site's completed pulls, in crawl order. */
  rewards: readonly number[];
  /** The site still has a page to fetch and may be chosen now. */
  open: boolean;
  group: string | null;
  /** The value of the site's next page (its priority in an ordered crawl: with --order value, its predicted new external URLs); undefined when not ordered or none. */
  next?: number;
}

export interface PickInput {
  arms: readonly Arm[];
  /** Site ids in pull order (completed pulls in crawl order, then in-flight ones in pick order). */
  history: readonly number[];
  /** Total pages for the whole crawl (N), or null when unbounded. */
  budget: number | null;
  /** Uniform [0, 1) numbers; seeded from the crawl's seed and history.length, so a resume replays them. */
  random: () => number;
}

/**
 * Returns the id of an open arm, or null when none is open. `byWorth`: the policy picks the open
 * arm that ranks first by worth (sites/pages.ts ranksBefore), so a chooser that keeps the open
 * arms in that rank (ranked-arms.ts) may answer for it, the same choice without a pass over them all.
 */
export type Policy = ((input: PickInput) => number | null) & { byWorth?: true };
