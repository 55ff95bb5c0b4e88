/**
 * Hub groups: the article learns one rhythm per group of pages, keyed by host and
 * first path segment ("example.org/news"), and merges groups with too little history into
 * their host ("example.org"), since a forest fitted on a handful of items learns noise. Pure.
 */

/** The article's threshold: 1,000 items in 30 days. */
export const MIN_GROUP_ITEMS = 1000;

/**
 * Host (lowercased, port kept when not the default) and first path segment of a URL:
 * 'https://Example.org/news/2026/x' → 'example.org/news'; the root or an unparsable URL's
 * host alone ('example.org'). The segment keeps its case (paths are case-sensitive).
 */
export function groupKey(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const first = u.pathname.split('/').find((s) => s !== '');
  return first === undefined ? u.host : `${u.host}/${first}`;
}

/** The host part of a group key. */
export function hostOfKey(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? key : key.slice(0, slash);
}

/**
 * Which group each key ends in, given the number of items each key had in the window: a key
 * with fewer than `min` items goes to its host's group; a host group stays itself whatever its
 * size (there is nothing coarser to merge into). Merging depends only on each key's own count,
 * never on the order of the input, so it is deterministic; a merged host group then holds the
 * sum of its own and its merged keys' items (see mergedCounts).
 */
export function mergeGroups(counts: ReadonlyMap<string, number>, min = MIN_GROUP_ITEMS): Map<string, string> {
  const into = new Map<string, string>();
  for (const key of [...counts.keys()].sort()) {
    into.set(key, (counts.get(key) ?? 0) >= min ? key : hostOfKey(key));
  }
  return into;
}

/** Items per merged group. */
export function mergedCounts(counts: ReadonlyMap<string, number>, min = MIN_GROUP_ITEMS): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, group] of mergeGroups(counts, min)) out.set(group, (out.get(group) ?? 0) + (counts.get(key) ?? 0));
  return out;
}
