import { readFileSync } from 'node:fs';
import { confirm } from './confirm.js';
import { Command } from 'commander';
import { BeebotError, UsageError } from '../errors.js';
import { parseSeedUrl } from '../url/url.js';
import { boundsKey, siteLabel } from '../url/scope.js';
import { SiteOverlaps } from '../url/site-overlaps.js';
import type { PagesGiven } from '../db/page-owners.js';
import type { Db } from '../db/db.js';
import { readSettings } from '../store/settings.js';
import { addSites, deleteSite, findDuplicate, listSites, planSites, type PlacedSite, type SitePlan, reopenSites, ruleOf, siteRules, resolveSiteRef, type SeedInput } from '../store/sites.js';
import { decodeSeedFile, parseSeedFile, seedFileText, seedOf, SEED_COLUMNS, type SeedFields } from './seed-file.js';
import { counted } from '../markup/counted.js';
import { quietOption, toldWritten, writeWhole } from './write-file.js';
import { distinctExternalBySite, externalLinksBySite } from '../store/distinct.js';
import { dbPath, isTty, printJson, withDb, withReadDb } from './context.js';
import { holdCrawlLock } from './crawl-lock.js';
import { isPostgresUrl } from '../db/pg/url.js';
import { formatTable } from './table.js';
import { screen } from '../markup/terminal-text.js';
import { cannotRead } from './read-error.js';

export function seedsCommand(): Command {
  const seeds = new Command('seeds').description('add, import, export, list and remove the sites to crawl');

  seeds
    .command('add <url>')
    .description("add a site; a bare domain means https://<domain>/; says the new site's id and URL (--json: as data)")
    .option('--name <full>', 'full name')
    .option('--short <short>', 'short name (used in tables and --site)')
    .option('--group <label>', 'group, e.g. university or institute')
    .option('--scope <scope>', 'what the site is: host (www. ignored), domain (with its subdomains) or prefix (the URL path); default: the scope setting')
    .option('--include <pattern>', "fetch only URLs matching (repeatable; a glob like '/news/*', or 're:<regex>')", collect, [])
    .option('--exclude <pattern>', "never fetch URLs matching (repeatable; a glob like '*/print/*', or 're:<regex>')", collect, [])
    .option('--sitemaps <yes|no>', "queue the site's sitemap URLs; default: the sitemaps setting")
    .option('--json', 'print the new site as JSON: id, url, name, short, group, scope')
    .action(async (url: string, opts: SeedFields & { json?: boolean }, cmd: Command) => {
      const u = parseSeedUrl(url);
      if (!u) throw new UsageError(`not a usable http(s) URL: '${url}'`);
      const seed = seedOf(u, opts);
      if (typeof seed === 'string') throw new UsageError(seed);
      await withDb(cmd, (db) => {
        checkNew(db, seed);
        const settings = readSettings(db);
        const plan = planSites(db, [seed], settings);
        const release = lockIfInside(cmd, plan);
        try {
          const added = addSites(db, plan, settings);
          const site = { id: added.ids[0]!, url: plan.fresh[0]!.url, name: seed.name ?? null, short: seed.short ?? null, group: seed.group ?? null, scope: plan.fresh[0]!.rule.scope };
          if (opts.json) printJson(site);
          else process.stdout.write(`added site ${site.id}: ${site.url}${site.short !== null ? ` (short: ${screen(site.short)})` : ''}\n`);
          for (const line of overlapNotes(plan, added)) process.stderr.write(`${line}\n`);
        } finally {
          release();
        }
      });
    });

  seeds
    .command('import <file>')
    .description(`add sites from a file: one URL per line, or a table (CSV, ; TAB or | separated) whose header names url and any of ${SEED_COLUMNS.slice(1).join(', ')} (include, exclude: patterns separated by spaces; an empty cell: the setting's default), as seeds export writes it`)
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch (err) {
        throw new BeebotError(cannotRead(file, err));
      }
      const text = decodeSeedFile(bytes);
      if (typeof text !== 'string') throw new UsageError(`nothing imported: ${file}: ${text.error}`);
      const rows = parseSeedFile(text);
      await withDb(cmd, (db) => {
        const settings = readSettings(db);
        // the sites by their bounds: a file of 100,000 rows compared each with all before took minutes
        const existing = new Map<string, string>();
        for (const x of siteRules(db, settings)) if (!existing.has(boundsKey(x.rule))) existing.set(boundsKey(x.rule), x.site.url);
        const added: SeedInput[] = [];
        const skipped: string[] = [];
        for (const r of rows) {
          const key = boundsKey(ruleOf({ url: r.url.href, scope: r.scope ?? null, include: null, exclude: null }, settings));
          const dup = existing.get(key);
          if (dup !== undefined) skipped.push(`line ${r.line}: ${r.url.href} duplicates ${dup}`);
          else {
            added.push(r);
            existing.set(key, r.url.href);
          }
        }
        const plan = planSites(db, added, settings);
        const release = lockIfInside(cmd, plan);
        try {
          const done = addSites(db, plan, settings);
          process.stdout.write(`added ${done.ids.length}, skipped ${skipped.length}\n`);
          for (const s of skipped) process.stdout.write(`skipped ${s}\n`);
          for (const line of overlapNotes(plan, done)) process.stderr.write(`${line}\n`);
        } finally {
          release();
        }
      });
    });

  seeds
    .command('export <file>')
    .description("write the sites as a seed file (RFC 4180 CSV, header row) that seeds import reads back: each site's URL, names, group and own scope, patterns and sitemaps; '-' writes to stdout")
    .option('--bom', 'start with a UTF-8 byte order mark (for spreadsheet programs; seeds import skips it)')
    .addOption(quietOption())
    .action(async (file: string, opts: { bom?: boolean; quiet?: boolean }, cmd: Command) => {
      await withReadDb(cmd, (db) => {
        const sites = listSites(db);
        const text = (opts.bom ? '\uFEFF' : '') + seedFileText(sites);
        if (file === '-') return void process.stdout.write(text);
        writeWhole(file, text);
        toldWritten(file, counted(sites.length, 'site'), opts.quiet);
      });
    });

  seeds
    .command('list')
    .description('list the sites')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await withReadDb(cmd, (db) => {
        const settings = readSettings(db);
        const sites = siteRules(db, settings).map((x) => ({ ...x.site, scope: x.rule.scope, bounds: x.rule }));
        if (opts.json) {
          const pairs = externalLinksBySite(db);
          const distinct = distinctExternalBySite(db);
          printJson(
            sites.map((s) => ({
              id: s.id, url: s.url, name: s.name, short: s.short, group: s.group, scope: s.scope, prefix: s.bounds.path,
              include: s.bounds.include.map((p) => p.source), exclude: s.bounds.exclude.map((p) => p.source), sitemaps: s.sitemaps ?? settings.sitemaps,
              pages_fetched: s.pulls,
              external: pairs.get(s.id) ?? 0, external_urls: distinct.get(s.id)?.urls ?? 0, external_hosts: distinct.get(s.id)?.hosts ?? 0,
            })),
          );
        } else {
          const rows = sites.map((s) => [s.id, s.short, s.group, s.url, s.scope, s.name]);
          process.stdout.write(formatTable(['id', 'short', 'group', 'url', 'scope', 'name'], rows, isTty()));
        }
      });
    });

  seeds
    .command('remove <site>')
    .description('remove a site (by id, URL, host or short name) and all its links')
    .option('--yes', 'do not ask for confirmation')
    .action(async (ref: string, opts: { yes?: boolean }, cmd: Command) => {
      await withDb(cmd, async (db) => {
        const site = resolveSiteRef(db, ref);
        if (!site) throw new UsageError(`no such site: '${ref}'`);
        if (!opts.yes && !(await confirm(`remove site ${site.id} (${site.url}) and all its links? [y/N] `))) {
          throw new UsageError('not removed (pass --yes to remove without asking)');
        }
        deleteSite(db, site.id);
        process.stdout.write(`removed ${site.id} ${site.url}\n`);
      }, { mustExist: true });
    });
  seeds
    .command('retry [sites...]')
    .description('try Not Available sites again in the next crawl, whatever their start page answered (by id, URL, host or short name; none: every one)')
    .action(async (refs: string[], _opts: unknown, cmd: Command) => {
      await withDb(cmd, async (db) => {
        const ids = refs.map((ref) => {
          const site = resolveSiteRef(db, ref);
          if (!site) throw new UsageError(`no such site: '${ref}'`);
          return site.id;
        });
        const reopened = reopenSites(db, refs.length ? ids : listSites(db).map((x) => x.id));
        process.stdout.write(reopened.length ? `${reopened.length} site(s) will be tried again by the next crawl: ${reopened.join(', ')}\n` : 'no Not Available site to retry\n');
      }, { mustExist: true });
    });
  return seeds;
}

function checkNew(db: Db, seed: SeedInput): void {
  const settings = readSettings(db);
  const rule = ruleOf({ url: seed.url.href, scope: seed.scope ?? null, include: null, exclude: null }, settings);
  const dup = findDuplicate(siteRules(db, settings).map((x) => ({ ...x.site, rule: x.rule })), rule);
  if (dup) throw new UsageError(`${seed.url.href} duplicates site ${dup.id} (${dup.url})`);
}

/**
 * A site added inside another takes over pages the other stored: not while a crawl of this SQLite
 * file runs (it holds those pages' sites in memory). Sites added elsewhere need no lock.
 */
function lockIfInside(cmd: Command, plan: SitePlan): () => void {
  if (!plan.inside || isPostgresUrl(dbPath(cmd))) return () => undefined;
  return holdCrawlLock(dbPath(cmd), (pid) => `a crawl (pid ${pid}) is running on ${dbPath(cmd)}: stop it before adding a site inside another (it takes over pages the crawl may hold)`);
}

/**
 * What adding sites means where they meet others: which site's pages are whose, that links
 * between them are external, the pages an older site had stored that are the new one's now, and
 * what a prefix seed's folder is.
 */
function overlapNotes(plan: SitePlan, added: { ids: number[]; given: readonly PagesGiven[]; sites: readonly PlacedSite[] }): string[] {
  const overlaps = new SiteOverlaps(plan.meeting.length ? added.sites : []);
  const meeting = new Set(plan.meeting);
  const name = (x: PlacedSite) => `site ${x.id} (${siteLabel(x.rule)})`;
  const notes: string[] = [];
  plan.fresh.forEach((f, i) => {
    const x = { ...f, id: added.ids[i]! };
    const seedPath = new URL(x.url).pathname;
    if (x.rule.path === '/') notes.push(`${name(x)} is the folder /: the whole host, as --scope host would be, and it owns every page of the host that no more specific site holds`);
    else if (x.rule.path !== null && seedPath !== x.rule.path) notes.push(`${name(x)} is the folder ${x.rule.path} with every page under it, not ${seedPath} alone`);
    if (!meeting.has(i)) return;
    // each pair once, from the newer site's side
    const older = (s: PlacedSite) => s.id < x.id;
    const both = overlaps.of(x.rule);
    const [within, holding] = [both.within.filter(older), both.holding.filter(older)];
    for (const o of within) notes.push(`${name(x)} lies inside ${name(o)}: its pages are site ${x.id}'s from now on, and links between the two sites count as external`);
    for (const o of holding) notes.push(`${name(x)} holds ${name(o)}: site ${o.id}'s pages stay site ${o.id}'s, and links between the two sites count as external`);
    for (const g of added.given.filter((g) => g.to === x.id)) {
      notes.push(`${g.pages} ${g.pages === 1 ? 'page' : 'pages'} site ${g.from} had stored ${g.pages === 1 ? 'is' : 'are'} site ${x.id}'s now (${g.fetched} fetched, not fetched again)`);
    }
  });
  return notes;
}

const collect = (v: string, all: string[]): string[] => [...all, v];
