import type { Db } from './db-types.js';
import { insertIgnore, onConflictIgnore } from './dialect.js';
import { ownerOf, siteRule, siteVerdict, type Scope, type SiteRule } from '../url/scope.js';
import { SiteOverlaps } from '../url/site-overlaps.js';
import { parseUrlPattern, type UrlPattern } from '../url/url-pattern.js';
import { hostKey } from '../url/url.js';
import { fingerprint } from '../url/key-hash.js';

export interface OwnedSite {
  id: number;
  rule: SiteRule;
}

/** Pages one site had stored that another site owns now. `fetched`: of them, the ones it had fetched. */
export interface PagesGiven {
  from: number;
  to: number;
  pages: number;
  fetched: number;
}

interface Misplaced {
  id: number;
  from: number;
  to: number;
  url: string;
  level: number;
  key: string;
  fetched: number;
}

interface CrossingEdge {
  src: number;
  dst: number;
  anchor: string | null;
  foundAt: string | null;
  lastSeen: string | null;
  goneAt: string | null;
  site: number;
  level: number;
  fetchedAt: string | null;
  key: string;
  url: string;
}

/**
 * Give each stored page to the site that owns it (the most specific site whose bounds hold it,
 * scope.ts; a start page stays with its site), as if the sites had all been there from the
 * start: a page a site stored before a site nested in its bounds was added becomes the nested
 * site's, with its pull and its links, so it is neither fetched nor counted twice. Links that now
 * run between two sites become external links of the linking page; a page both sites stored is
 * kept once (the fetched copy, the owner's when both were fetched, at the lower level); a page
 * the new owner's patterns leave out is `excluded`, its pull and links dropped; the pages moved
 * get their level in their new site (breadth-first from its start page over the stored links);
 * the sites' pull counts follow. `into`: only pages these sites own (the sites just added);
 * null: every site's (the migration).
 */
export function givePagesToOwners(db: Db, sites: readonly OwnedSite[], into: ReadonlySet<number> | null): PagesGiven[] {
  const misplaced = findMisplaced(db, sites, into);
  if (misplaced.length === 0) return [];
  const byId = new Map(sites.map((s) => [s.id, s]));
  db.transaction(() => {
    const touched = [...new Set(misplaced.flatMap((m) => [m.from, m.to]))];
    // one copy of each page first: PostgreSQL keeps (site, fingerprint) unique at every statement
    const gone = pickCopies(db, misplaced);
    if (gone.size) for (const site of touched) leadEdgesTo(db, site, gone);
    const dropEdges = db.prepare('DELETE FROM edges WHERE src = ?');
    const dropPage = db.prepare('DELETE FROM pages WHERE id = ?');
    for (const id of gone.keys()) {
      dropEdges.run(id);
      dropPage.run(id); // its pull, links and text go with it (foreign keys)
    }
    const moving = misplaced.filter((m) => !gone.has(m.id));
    const moveTo = ['pages SET site_id = ? WHERE id', 'fetches SET site_id = ? WHERE page_id', 'external_links SET site_id = ? WHERE page_id', 'bad_links SET site_id = ? WHERE page_id', 'watch_hubs SET site_id = ? WHERE page_id']
      .map((t) => db.prepare(`UPDATE ${t} = ?`));
    for (const m of moving) for (const s of moveTo) s.run(m.to, m.id);
    for (const site of touched) edgesToExternal(db, site);
    const overlaps = new SiteOverlaps(sites);
    for (const [to, pages] of byOwner(misplaced)) {
      const site = byId.get(to)!;
      const nested = overlaps.of(site.rule).holding.map((s) => s.rule);
      applyPatterns(db, site.rule, nested, pages.filter((m) => !gone.has(m.id)));
      relevel(db, to, new Set(pages.map((m) => keptFor(gone, m.id))));
    }
    const foundOn = db.prepare(
      `UPDATE pages SET found_on = NULL WHERE site_id = ? AND found_on IS NOT NULL
          AND EXISTS (SELECT 1 FROM pages f WHERE f.id = pages.found_on AND f.site_id <> pages.site_id)`,
    );
    const counts = db.prepare(
      `UPDATE sites SET pulls = (SELECT count(*) FROM fetches f WHERE f.site_id = sites.id),
         reward_sum = coalesce((SELECT sum(reward) FROM fetches f WHERE f.site_id = sites.id), 0),
         reward_max = coalesce((SELECT max(reward) FROM fetches f WHERE f.site_id = sites.id), 0),
         deepest = (SELECT max(p.level) FROM pages p WHERE p.site_id = sites.id AND EXISTS (SELECT 1 FROM fetches f WHERE f.page_id = p.id))
       WHERE id = ?`,
    );
    for (const site of touched) {
      foundOn.run(site);
      counts.run(site);
    }
  })();
  const given = new Map<string, PagesGiven>();
  for (const m of misplaced) {
    const k = `${m.from} ${m.to}`;
    const g = given.get(k) ?? { from: m.from, to: m.to, pages: 0, fetched: 0 };
    g.pages++;
    g.fetched += m.fetched ? 1 : 0;
    given.set(k, g);
  }
  return [...given.values()];
}

function byOwner(misplaced: readonly Misplaced[]): Map<number, Misplaced[]> {
  const out = new Map<number, Misplaced[]>();
  for (const m of misplaced) {
    const list = out.get(m.to);
    if (list) list.push(m);
    else out.set(m.to, [m]);
  }
  return out;
}

/** The pages stored under a site that a site nested in its bounds owns (only those of `into`, when given). */
function findMisplaced(db: Db, sites: readonly OwnedSite[], into: ReadonlySet<number> | null): Misplaced[] {
  const overlaps = new SiteOverlaps(sites);
  // the sites that may hold pages another site owns: those with a site inside them (only the new sites, when given)
  const outer = into
    ? [...new Set(sites.filter((s) => into.has(s.id)).flatMap((s) => overlaps.of(s.rule).within))].sort((a, b) => a.id - b.id)
    : sites;
  const pagesOf = db.prepare(
    `SELECT p.id, p.url, p.level, p.key, CASE WHEN EXISTS (SELECT 1 FROM fetches f WHERE f.page_id = p.id) THEN 1 ELSE 0 END AS fetched
       FROM pages p WHERE p.site_id = ?`,
  );
  const out: Misplaced[] = [];
  for (const site of outer) {
    const nested = overlaps.of(site.rule).holding;
    if (nested.length === 0) continue;
    for (const p of pagesOf.all(site.id) as Omit<Misplaced, 'from' | 'to'>[]) {
      // a start page stays its site's, whoever holds it: the site is crawled from it
      if (p.level === 0) continue;
      const owner = ownerOf(new URL(p.url), nested);
      if (owner && (!into || into.has(owner.id))) out.push({ ...p, from: site.id, to: owner.id });
    }
  }
  return out;
}

/** A site's links to pages another site owns now: external links of the linking page, as the crawl would store them. */
function edgesToExternal(db: Db, site: number): void {
  const crossing = db.prepare(
    `SELECT e.src, e.dst, e.anchor, e.found_at AS "foundAt", e.last_seen AS "lastSeen", e.gone_at AS "goneAt",
            s.site_id AS site, s.level, s.fetched_at AS "fetchedAt", d.key, d.url
       FROM pages s JOIN edges e ON e.src = s.id JOIN pages d ON d.id = e.dst
      WHERE s.site_id = ? AND d.site_id <> s.site_id`,
  ).all(site) as CrossingEdge[];
  const external = db.prepare(
    `${insertIgnore(db)} INTO external_links (site_id, page_id, key, url, host, level, anchor, rel, tag, found_at, last_seen, gone_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?)${onConflictIgnore(db)}`,
  );
  const drop = db.prepare('DELETE FROM edges WHERE src = ? AND dst = ?');
  for (const e of crossing) {
    // an edge without an anchor is an in-site redirect: the crawl stores one leaving the site as tag 'redirect'
    external.run(e.site, e.src, e.key, e.url, hostKey(new URL(e.url).hostname), e.level, e.anchor ?? '', e.anchor === null ? 'redirect' : 'a',
      e.foundAt ?? e.fetchedAt, e.lastSeen, e.goneAt);
    drop.run(e.src, e.dst);
  }
}

/**
 * A page the new owner had stored too (its start page, or a page both fetched) is kept once: the
 * fetched copy, the owner's own when both or neither were, at the lower of the two levels.
 * Returns each copy to drop → the copy kept instead (perhaps dropped in turn: see keptFor).
 */
function pickCopies(db: Db, misplaced: readonly Misplaced[]): Map<number, number> {
  const twin = db.prepare(
    `SELECT p.id, p.level, CASE WHEN EXISTS (SELECT 1 FROM fetches f WHERE f.page_id = p.id) THEN 1 ELSE 0 END AS fetched
       FROM pages p WHERE p.site_id = ? AND p.dir = ? AND p.fp = ?`,
  );
  const setLevel = db.prepare('UPDATE pages SET level = ? WHERE id = ?');
  type Copy = { id: number; level: number; fetched: number };
  const chosen = new Map<string, Copy>(); // owner and key → the copy kept so far
  const gone = new Map<number, number>();
  for (const m of misplaced) {
    const k = `${m.to} ${m.key}`;
    const { dir, fp } = fingerprint(m.key);
    const other = chosen.get(k) ?? (twin.get(m.to, dir, fp) as Copy | undefined);
    if (!other) {
      chosen.set(k, m);
      continue;
    }
    const [keep, drop] = m.fetched && !other.fetched ? [m, other] : [other, m];
    if (drop.level < keep.level) setLevel.run((keep.level = drop.level), keep.id);
    gone.set(drop.id, keep.id);
    chosen.set(k, keep);
  }
  return gone;
}

/** The copy kept for a page: itself, or the one kept instead of it. */
function keptFor(gone: ReadonlyMap<number, number>, id: number): number {
  while (gone.has(id)) id = gone.get(id)!;
  return id;
}

/** A site's links to a copy about to be dropped lead to the copy kept instead. */
function leadEdgesTo(db: Db, site: number, gone: ReadonlyMap<number, number>): void {
  const edges = db.prepare('SELECT e.src, e.dst FROM pages s JOIN edges e ON e.src = s.id WHERE s.site_id = ?').raw().all(site) as [number, number][];
  const add = db.prepare(
    `${insertIgnore(db)} INTO edges (src, dst, anchor, found_at, last_seen, gone_at)
       SELECT src, ?, anchor, found_at, last_seen, gone_at FROM edges WHERE src = ? AND dst = ?${onConflictIgnore(db)}`,
  );
  const drop = db.prepare('DELETE FROM edges WHERE src = ? AND dst = ?');
  for (const [src, dst] of edges) {
    if (!gone.has(dst) || gone.has(src)) continue;
    const to = keptFor(gone, dst);
    if (src !== to) add.run(to, src, dst);
    drop.run(src, dst);
  }
}

/**
 * The new owner's include/exclude patterns hold some pages it was given: those are `excluded`
 * (their pull and links dropped, as if never fetched); a page excluded only by the old site's
 * patterns is queued again.
 */
function applyPatterns(db: Db, rule: SiteRule, nested: readonly SiteRule[], pages: readonly Misplaced[]): void {
  const status = db.prepare('SELECT status FROM pages WHERE id = ?').pluck();
  const exclude = db.prepare(`UPDATE pages SET status = 'excluded', note = ?, fetched_at = NULL, retry_at = NULL WHERE id = ?`);
  const requeue = db.prepare(`UPDATE pages SET status = 'queued', note = NULL WHERE id = ? AND status = 'excluded'`);
  const forget = ['fetches', 'external_links', 'bad_links'].map((t) => db.prepare(`DELETE FROM ${t} WHERE page_id = ?`));
  const dropEdges = db.prepare('DELETE FROM edges WHERE src = ?');
  for (const p of pages) {
    const v = siteVerdict(new URL(p.url), rule, nested);
    if (v.kind === 'held') {
      if (status.get(p.id) === 'excluded') continue;
      for (const s of forget) s.run(p.id);
      dropEdges.run(p.id);
      exclude.run(v.note, p.id);
    } else if (v.kind === 'in') requeue.run(p.id);
  }
}

/** The level of each page `moved` to a site: its distance from the site's start pages over the site's stored links (unreached: as it was). */
function relevel(db: Db, site: number, moved: ReadonlySet<number>): void {
  const levels = new Map(db.prepare('SELECT id, level FROM pages WHERE site_id = ?').raw().all(site) as [number, number][]);
  const out = new Map<number, number[]>();
  for (const [src, dst] of db.prepare('SELECT e.src, e.dst FROM pages s JOIN edges e ON e.src = s.id WHERE s.site_id = ?').raw().all(site) as [number, number][]) {
    if (!out.has(src)) out.set(src, []);
    out.get(src)!.push(dst);
  }
  const dist = new Map<number, number>();
  let frontier = [...levels].filter(([, l]) => l === 0).map(([id]) => id);
  for (const id of frontier) dist.set(id, 0);
  for (let d = 1; frontier.length; d++) {
    const next: number[] = [];
    for (const id of frontier) for (const to of out.get(id) ?? []) if (levels.has(to) && !dist.has(to)) (dist.set(to, d), next.push(to));
    frontier = next;
  }
  const set = db.prepare('UPDATE pages SET level = ? WHERE id = ?');
  for (const id of moved) {
    const d = dist.get(id);
    if (d !== undefined && d !== levels.get(id)) set.run(d, id);
  }
}

/** The sites' rules as stored (a site without its own scope takes the scope setting): what the migration needs, below the store. */
export function storedSites(db: Db): OwnedSite[] {
  const scope = ((db.prepare(`SELECT value FROM settings WHERE key = 'scope'`).pluck().get() as string | undefined) ?? 'host') as Scope;
  const rows = db.prepare('SELECT id, url, scope, include, exclude FROM sites ORDER BY id').all() as
    { id: number; url: string; scope: Scope | null; include: string | null; exclude: string | null }[];
  const patterns = (json: string | null): UrlPattern[] => (json === null ? [] : (JSON.parse(json) as string[]).map((p) => parseUrlPattern(p) as UrlPattern));
  return rows.map((r) => ({ id: r.id, rule: siteRule(new URL(r.url), r.scope ?? scope, { include: patterns(r.include), exclude: patterns(r.exclude) }) }));
}

/** The migration: every page to its owner, in databases where a site was added inside another after the other had stored pages there. */
export function migratePageOwners(db: Db): void {
  givePagesToOwners(db, storedSites(db), null);
}
