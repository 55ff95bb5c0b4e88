import { readFileSync } from 'node:fs';
import { confirm } from './confirm.js';
import { Command } from 'commander';
import { parse as parseCsv } from 'csv-parse/sync';
import { BeebotError, UsageError } from '../errors.js';
import { parseSeedUrl } from '../url/url.js';
import type { Db } from '../db/db.js';
import { readSettings } from '../store/settings.js';
import { deleteSite, findDuplicate, insertSites, listSites, reopenSites, resolveSiteRef, type SeedInput } from '../store/sites.js';
import { distinctExternalBySite, externalLinksBySite } from '../store/distinct.js';
import { isTty, printJson, withDb } from './context.js';
import { formatTable } from './table.js';

export function seedsCommand(): Command {
  const seeds = new Command('seeds').description('add, import, list and remove the sites to crawl');

  seeds
    .command('add <url>')
    .description("add a site; a bare domain means https://<domain>/; prints the new site's id")
    .option('--name <full>', 'full name')
    .option('--short <short>', 'short name (used in tables and --site)')
    .option('--group <label>', 'group, e.g. university or institute')
    .action(async (url: string, opts: { name?: string; short?: string; group?: string }, cmd: Command) => {
      const u = parseSeedUrl(url);
      if (!u) throw new UsageError(`not a usable http(s) URL: '${url}'`);
      await withDb(cmd, (db) => {
        checkNew(db, [{ url: u, ...opts }]);
        const [id] = insertSites(db, [{ url: u, ...opts }], readSettings(db).normalize);
        process.stdout.write(`${id}\n`);
      });
    });

  seeds
    .command('import <file>')
    .description('add sites from a file: one URL per line, or CSV with header url,name,short,group')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        throw new BeebotError(`cannot read ${file}`);
      }
      const rows = parseSeedFile(text);
      await withDb(cmd, (db) => {
        const settings = readSettings(db);
        const existing = listSites(db);
        const added: SeedInput[] = [];
        const skipped: string[] = [];
        for (const r of rows) {
          const dup = findDuplicate(existing, r.url, settings.scope) ?? findDuplicate(added.map((a) => ({ url: a.url.href })), r.url, settings.scope);
          if (dup) skipped.push(`line ${r.line}: ${r.url.href} duplicates ${dup.url}`);
          else added.push(r);
        }
        const ids = insertSites(db, added, settings.normalize);
        process.stdout.write(`added ${ids.length}, skipped ${skipped.length}\n`);
        for (const s of skipped) process.stdout.write(`skipped ${s}\n`);
      });
    });

  seeds
    .command('list')
    .description('list the sites')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await withDb(cmd, (db) => {
        const sites = listSites(db);
        if (opts.json) {
          const pairs = externalLinksBySite(db);
          const distinct = distinctExternalBySite(db);
          printJson(
            sites.map((s) => ({
              id: s.id, url: s.url, name: s.name, short: s.short, group: s.group, pages_fetched: s.pulls,
              external: pairs.get(s.id) ?? 0, external_urls: distinct.get(s.id)?.urls ?? 0, external_hosts: distinct.get(s.id)?.hosts ?? 0,
            })),
          );
        } else {
          const rows = sites.map((s) => [s.id, s.short, s.group, s.url, s.name]);
          process.stdout.write(formatTable(['id', 'short', 'group', 'url', 'name'], rows, isTty()));
        }
      });
    });

  seeds
    .command('remove <site>')
    .description('remove a site (by id, URL or short name) and all its links')
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
      });
    });
  seeds
    .command('retry [sites...]')
    .description('try Not Available sites again in the next crawl, whatever their start page answered (by id, URL or short name; none: every one)')
    .action(async (refs: string[], _opts: unknown, cmd: Command) => {
      await withDb(cmd, async (db) => {
        const ids = refs.map((ref) => {
          const site = resolveSiteRef(db, ref);
          if (!site) throw new UsageError(`no such site: '${ref}'`);
          return site.id;
        });
        const reopened = reopenSites(db, refs.length ? ids : listSites(db).map((x) => x.id));
        process.stdout.write(reopened.length ? `${reopened.length} site(s) will be tried again by the next crawl: ${reopened.join(', ')}\n` : 'no Not Available site to retry\n');
      });
    });
  return seeds;
}

function checkNew(db: Db, seeds: SeedInput[]): void {
  const dup = findDuplicate(listSites(db), seeds[0]!.url, readSettings(db).scope);
  if (dup) throw new UsageError(`${seeds[0]!.url.href} duplicates site ${dup.id} (${dup.url})`);
}

interface SeedRow extends SeedInput {
  line: number;
}

/** Read a seed file; any invalid line rejects the whole file (nothing is written). */
export function parseSeedFile(text: string): SeedRow[] {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.split(/\r?\n/, 1)[0]!.trim().toLowerCase();
  const isCsv = /^url\s*(,|$)/.test(firstLine) && firstLine.includes(',');
  let records: { line: number; url: string; name?: string; short?: string; group?: string }[];
  if (isCsv) {
    let parsed: Record<string, string>[];
    try {
      parsed = parseCsv(body, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, trim: true, info: true }) as never;
    } catch (err) {
      throw new UsageError(`not valid CSV: ${(err as Error).message}`);
    }
    records = (parsed as unknown as { record: Record<string, string>; info: { lines: number } }[]).map(({ record, info }) => ({
      line: info.lines,
      url: record.url ?? '',
      name: record.name || undefined,
      short: record.short || undefined,
      group: record.group || undefined,
    }));
  } else {
    records = body
      .split(/\r?\n/)
      .map((l, i) => ({ line: i + 1, url: l.trim() }))
      .filter((r) => r.url !== '' && !r.url.startsWith('#'));
  }
  const bad: string[] = [];
  const rows: SeedRow[] = [];
  for (const r of records) {
    const url = parseSeedUrl(r.url);
    if (url) rows.push({ ...r, url });
    else bad.push(`line ${r.line}: '${r.url}'`);
  }
  if (bad.length) throw new UsageError(`nothing imported: not a usable http(s) URL at ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}`);
  return rows;
}
