import type { Db } from '../db/db.js';

/** One host's politeness state as `status` shows it (written by the crawl as it changes). */
export interface HostPoliteness {
  host: string;
  delay_ms: number;
  crawl_delay_ms: number | null;
  clamped: boolean;
  robots: string | null;
  failures: number;
  paused_until: string | null;
}

export class PolitenessWriter {
  private upsert;
  private robotsStmt;

  constructor(db: Db) {
    this.upsert = db.prepare(
      `INSERT INTO hosts (host, delay_ms, failures, paused_until, updated_at) VALUES (@host, @delay, @failures, @paused, @at)
       ON CONFLICT (host) DO UPDATE SET delay_ms = excluded.delay_ms, failures = excluded.failures,
         paused_until = excluded.paused_until, updated_at = excluded.updated_at`,
    );
    this.robotsStmt = db.prepare(
      `INSERT INTO hosts (host, delay_ms, crawl_delay_ms, clamped, robots, updated_at) VALUES (@host, @delay, @crawlDelay, @clamped, @robots, @at)
       ON CONFLICT (host) DO UPDATE SET delay_ms = excluded.delay_ms, crawl_delay_ms = excluded.crawl_delay_ms,
         clamped = excluded.clamped, robots = excluded.robots, updated_at = excluded.updated_at`,
    );
  }

  private last = new Map<string, string>();

  /** Written when it changes, not on every page. */
  state(host: string, delay: number, failures: number, pausedUntil: number | null): void {
    const paused = pausedUntil === null ? null : new Date(pausedUntil).toISOString();
    const sig = `${delay} ${failures} ${paused}`;
    if (this.last.get(host) === sig) return;
    this.last.set(host, sig);
    this.upsert.run({ host, delay, failures, paused, at: new Date().toISOString() });
  }

  robots(host: string, delay: number, crawlDelay: number | null, clamped: boolean, summary: string): void {
    this.robotsStmt.run({ host, delay, crawlDelay, clamped: clamped ? 1 : 0, robots: summary, at: new Date().toISOString() });
  }
}

export function readPoliteness(db: Db): HostPoliteness[] {
  const rows = db.prepare('SELECT host, delay_ms, crawl_delay_ms, clamped, robots, failures, paused_until FROM hosts ORDER BY host').all() as (Omit<HostPoliteness, 'clamped'> & { clamped: number })[];
  return rows.map((r) => ({ ...r, clamped: Boolean(r.clamped) }));
}
