/**
 * The time this process has spent blocked in database calls (ms). The store's API is synchronous,
 * so while a call waits (a paused or restarting server) the whole event loop waits with it, and a
 * timer set before fires late. A page's deadline covers the fetch, never such a wait: it asks
 * how much of its time went here (src/net/page-deadline.ts). PostgreSQL's calls are counted.
 */
let waited = 0;

export const dbWaitMs = (): number => waited;

export function countDbWait(ms: number): void {
  waited += ms;
}
