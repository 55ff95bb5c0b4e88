import type { CachedCheck, SiteExternal } from '../store/url-checks.js';
import type { UrlCheck } from '../store/url-checks.js';

export interface ExternalOutcome {
  results: { ext: SiteExternal; check: CachedCheck }[];
  /** checked now / taken from the cache / left unchecked because of --max */
  checked: number;
  cached: number;
  unchecked: number;
  /** checked now and never answered (no HTTP status): all of them means no network, not dead links */
  unanswered: number;
}

export interface ExternalCheckOptions {
  /** at most this many requests' worth of URLs checked now (null: all) */
  max: number | null;
  /** ignore the cache: check every URL again */
  recheck: boolean;
  /** URLs checked at once; the host gate keeps it to one request per host */
  concurrency: number;
}

/**
 * Each distinct external URL checked once: from the cache unless --recheck, else by `check`,
 * saved as it comes (an interrupted run keeps what it learned). Order: as first stored.
 */
export async function checkExternals(
  list: readonly SiteExternal[],
  cache: ReadonlyMap<string, CachedCheck>,
  o: ExternalCheckOptions,
  check: (url: string) => Promise<UrlCheck>,
  save: (c: CachedCheck) => void,
): Promise<ExternalOutcome> {
  const results: { ext: SiteExternal; check: CachedCheck }[] = [];
  const todo: SiteExternal[] = [];
  let unchecked = 0;
  for (const ext of list) {
    const c = o.recheck ? undefined : cache.get(ext.key);
    if (c) results.push({ ext, check: c });
    else if (o.max === null || todo.length < o.max) todo.push(ext);
    else unchecked++;
  }
  const cached = results.length;
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const ext = todo[next++]!;
      const c: CachedCheck = { ...(await check(ext.url)), key: ext.key, checkedAt: new Date().toISOString() };
      save(c);
      results.push({ ext, check: c });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  const order = new Map(list.map((e, i) => [e.key, i]));
  results.sort((a, b) => order.get(a.ext.key)! - order.get(b.ext.key)!);
  const now = new Set(todo.map((e) => e.key));
  const unanswered = results.filter((r) => now.has(r.ext.key) && r.check.status === null).length;
  return { results, checked: todo.length, cached, unchecked, unanswered };
}
