import type { Db } from './db.js';
import type { FrontierPage } from './frontier.js';

export type PageStatus = 'done' | 'not-html' | 'error' | 'redirect';

export interface Hop {
  url: string;
  status: number | null;
  location: string | null;
}

export interface FoundLinks {
  internal: { url: string; key: string }[];
  external: { url: string; key: string; anchor: string; rel: string; tag: string }[];
  bad: { raw: string; reason: string }[];
}

/** Everything one pull of the frontier produced: written in ONE transaction by commitPull. */
export interface PullResult {
  page: FrontierPage;
  /** Set when the page redirected inside the site: the final page is the one stored as processed. */
  final: { url: string; key: string } | null;
  status: PageStatus;
  httpStatus: number | null;
  contentType: string | null;
  bytes: number | null;
  encoding: string | null;
  encodingSource: string | null;
  error: string | null;
  hops: Hop[];
  links: FoundLinks;
  ms: number;
  /** The site's start page failed: mark the whole site not-available with this reason. */
  unavailable: string | null;
}

export interface Committed {
  seq: number;
  reward: number;
}

/** Prepared statements for writing a pull; one instance per crawl. */
export class PullWriter {
  private s;

  constructor(private db: Db) {
    this.s = {
      upsertPage: db.prepare(
        `INSERT INTO pages (site_id, key, url, level, found_on) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (site_id, key) DO UPDATE SET level = excluded.level, found_on = excluded.found_on
         WHERE excluded.level < pages.level AND pages.status = 'queued'`,
      ),
      pageByKey: db.prepare(`SELECT id, level FROM pages WHERE site_id = ? AND key = ?`),
      setStatus: db.prepare(`UPDATE pages SET status = ? WHERE id = ?`),
      setFinal: db.prepare(
        `UPDATE pages SET status = ?, level = min(level, ?) WHERE id = ?`,
      ),
      external: db.prepare(
        `INSERT OR IGNORE INTO external_links (site_id, page_id, key, url, level, anchor, rel, tag)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      bad: db.prepare(`INSERT OR IGNORE INTO bad_links (site_id, page_id, raw, reason) VALUES (?, ?, ?, ?)`),
      fetch: db.prepare(
        `INSERT INTO fetches (site_id, page_id, final_url, http_status, content_type, bytes, encoding,
           encoding_source, error, reward, ms, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      hop: db.prepare(`INSERT INTO hops (fetch_seq, n, url, status, location) VALUES (?, ?, ?, ?, ?)`),
      site: db.prepare(
        `UPDATE sites SET pulls = pulls + 1, reward_sum = reward_sum + ?, reward_max = max(reward_max, ?),
           deepest = max(coalesce(deepest, -1), ?), unavailable = coalesce(?, unavailable) WHERE id = ?`,
      ),
    };
  }

  /** Mark the page processed, store its links, log the pull and update the site's statistics. */
  commit(r: PullResult): Committed {
    return this.db.transaction((): Committed => {
      const s = this.s;
      const { page } = r;
      const siteId = page.siteId;
      // The page whose content we got: the pulled one, or its in-site redirect target.
      let contentId = page.id;
      let level = page.level;
      if (r.final) {
        s.upsertPage.run(siteId, r.final.key, r.final.url, page.level, page.id);
        const target = s.pageByKey.get(siteId, r.final.key) as { id: number; level: number };
        if (target.id !== page.id) {
          s.setStatus.run('redirect', page.id);
          contentId = target.id;
          level = Math.min(target.level, page.level);
          s.setFinal.run(r.status, level, contentId);
        } else {
          s.setStatus.run(r.status, page.id);
        }
      } else {
        s.setStatus.run(r.status, page.id);
      }

      for (const l of r.links.internal) s.upsertPage.run(siteId, l.key, l.url, level + 1, contentId);
      let reward = 0;
      // Links of an off-site redirect belong to the pulled page; links in content to the content page.
      const externalOn = r.status === 'redirect' ? page.id : contentId;
      for (const l of r.links.external) {
        reward += s.external.run(siteId, externalOn, l.key, l.url, level, l.anchor, l.rel, l.tag).changes;
      }
      for (const b of r.links.bad) s.bad.run(siteId, contentId, b.raw, b.reason);

      const seq = Number(
        s.fetch.run(
          siteId, page.id, r.final?.url ?? null, r.httpStatus, r.contentType, r.bytes, r.encoding,
          r.encodingSource, r.error, reward, Math.round(r.ms), new Date().toISOString(),
        ).lastInsertRowid,
      );
      r.hops.forEach((h, n) => s.hop.run(seq, n, h.url, h.status, h.location));
      s.site.run(reward, reward, level, r.unavailable, siteId);
      return { seq, reward };
    })();
  }
}
