/**
 * Why a found internal link is stored but never fetched: a crawler trap, a file that is not a
 * page, or a URL breaking its script's parameter rules (src/params).
 */
export interface Hold {
  status: 'trap' | 'file' | 'ignored';
  /** the trap's name (see traps.ts), the file's extension, or the parameter rule broken */
  note: string;
}

export interface FoundLinks {
  /**
   * `hold`: stored, never fetched. `anchor`: the link's text; `cues`: what an ordered crawl learns
   * from (src/order/cues.ts, space-separated), when the page was read with context.
   */
  internal: { url: string; key: string; anchor?: string; cues?: string; hold?: Hold }[];
  /** `host`: the key's host (www. folded, like the key): what the hosts reward counts. */
  external: { url: string; key: string; host: string; anchor: string; rel: string; tag: string }[];
  bad: { raw: string; reason: string }[];
}
