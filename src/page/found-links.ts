/**
 * Why a found internal link is stored but never fetched: a crawler trap, a file that is not a
 * page, a URL breaking its script's parameter rules (src/params), or one the site's
 * include/exclude patterns leave out (src/url/scope.ts).
 */
export interface Hold {
  status: 'trap' | 'file' | 'ignored' | 'excluded';
  /** the trap's name (see traps.ts), the file's extension, the parameter rule broken, or the pattern */
  note: string;
}

export interface FoundLinks {
  /**
   * `hold`: stored, never fetched. `anchor`: the link's text; `cues`: what an ordered crawl learns
   * from (src/schedule/links/cues.ts, space-separated), when the page was read with context.
   */
  internal: { url: string; key: string; anchor?: string; cues?: string; hold?: Hold }[];
  /** `host`: the key's host (www. folded, like the key): what the hosts reward counts. */
  external: { url: string; key: string; host: string; anchor: string; rel: string; tag: string }[];
  bad: { raw: string; reason: string }[];
}
