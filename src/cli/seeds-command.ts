import { readFileSync } from 'node:fs';
import { confirm } from './confirm.js';
import { Command } from 'commander';
import { parse as parseCsv } from 'csv-parse/sync';
import { BeebotError, UsageError } from '../errors.js';
import { parseSeedUrl } from '../url/url.js';
import type { Db } from '../db/db.js';
import { readSettings } from '../store/settings.js';
import { deleteSite, findDuplicate, insertSites, listSites, reopenSites, ruleOf, siteRules, resolveSiteRef, type SeedInput } from '../store/sites.js';
import { scopes, type Scope } from '../url/scope.js';
import { parseUrlPattern } from '../url/url-pattern.js';
import { distinctExternalBySite, externalLinksBySite } from '../store/distinct.js';
import { isTty, printJson, withDb, withReadDb } from './context.js';
import { formatTable } from './table.js';

export function seedsCommand(): Command {
  const seeds = new Command('seeds').description('add, import, list and remove the sites to crawl');

  seeds
    .command('add <url>')
    .description("add a site; a bare domain means https://<domain>/; prints the new site's id")
    .option('--name <full>', 'full name')
    .option('--short <short>', 'short name (used in tables and --site)')
    .option('--group <label>', 'group, e.g. university or institute')
    .option('--scope <scope>', 'what the site is: host (www. ignored), domain (with its subdomains) or prefix (the URL path); default: the scope setting')
    .option('--include <pattern>', "fetch only URLs matching (repeatable; a glob like '/news/*', or 're:<regex>')", collect, [])
    .option('--exclude <pattern>', "never fetch URLs matching (repeatable; a glob like '*/print/*', or 're:<regex>')", collect, [])
    .option('--sitemaps <yes|no>', "queue the site's sitemap URLs; default: the sitemaps setting")
    .action(async (url: string, opts: SeedOptions, cmd: Command) => {
      const u = parseSeedUrl(url);
      if (!u) throw new UsageError(`not a usable http(s) URL: '${url}'`);
      const seed = seedOptions(u, opts);
      await withDb(cmd, (db) => {
        checkNew(db, seed);
        const [id] = insertSites(db, [seed], readSettings(db).normalize, readSettings(db)['session-ids']);
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
        const existing = siteRules(db, settings).map((x) => ({ url: x.site.url, rule: x.rule }));
        const added: SeedInput[] = [];
        const skipped: string[] = [];
        for (const r of rows) {
          const dup = findDuplicate(existing, ruleOf({ url: r.url.href, scope: null, include: null, exclude: null }, settings));
          if (dup) skipped.push(`line ${r.line}: ${r.url.href} duplicates ${dup.url}`);
          else {
            added.push(r);
            existing.push({ url: r.url.href, rule: ruleOf({ url: r.url.href, scope: null, include: null, exclude: null }, settings) });
          }
        }
        const ids = insertSites(db, added, settings.normalize, settings['session-ids']);
        process.stdout.write(`added ${ids.length}, skipped ${skipped.length}\n`);
        for (const s of skipped) process.stdout.write(`skipped ${s}\n`);
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
      }, { mustExist: true });
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

function checkNew(db: Db, seed: SeedInput): void {
  const settings = readSettings(db);
  const rule = ruleOf({ url: seed.url.href, scope: seed.scope ?? null, include: null, exclude: null }, settings);
  const dup = findDuplicate(siteRules(db, settings).map((x) => ({ ...x.site, rule: x.rule })), rule);
  if (dup) throw new UsageError(`${seed.url.href} duplicates site ${dup.id} (${dup.url})`);
}

interface SeedOptions {
  name?: string;
  short?: string;
  group?: string;
  scope?: string;
  include: string[];
  exclude: string[];
  sitemaps?: string;
}

const collect = (v: string, all: string[]): string[] => [...all, v];

/** A seed from `seeds add`'s options; a bad scope, pattern or sitemaps value: a usage error. */
function seedOptions(url: URL, o: SeedOptions): SeedInput {
  if (o.scope !== undefined && !(scopes as string[]).includes(o.scope)) throw new UsageError(`--scope must be one of ${scopes.join(', ')}, got '${o.scope}'`);
  if (o.sitemaps !== undefined && o.sitemaps !== 'yes' && o.sitemaps !== 'no') throw new UsageError(`--sitemaps must be yes or no, got '${o.sitemaps}'`);
  for (const p of [...o.include, ...o.exclude]) {
    const parsed = parseUrlPattern(p);
    if (typeof parsed === 'string') throw new UsageError(`bad pattern '${p}': ${parsed}`);
  }
  return {
    url, name: o.name, short: o.short, group: o.group, scope: (o.scope as Scope | undefined) ?? null,
    include: o.include, exclude: o.exclude, sitemaps: (o.sitemaps as 'yes' | 'no' | undefined) ?? null,
  };
}

interface SeedRow extends SeedInput {
  line: number;
}

const SEED_COLUMNS = ['url', 'name', 'short', 'group'];
const DELIMITERS = [',', ';', '\t', '|'];

/**
 * The delimiter of a header line: one of , ; TAB | that splits it into plain words, one of them
 * 'url' (any case, quotes allowed). Null: the line is no header (then the file is a URL list).
 * Sniffed from the header rather than given to csv-parse as several delimiters, so a ';' file
 * keeps the commas inside its names.
 */
export function headerDelimiter(line: string): string | null {
  let best: { d: string; n: number } | null = null;
  for (const d of DELIMITERS) {
    const cells = line.split(d).map((c) => c.trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase());
    if (!cells.includes('url') || !cells.every((c) => /^[\p{L}\p{N} _-]*$/u.test(c) && !c.includes('://'))) continue;
    if (!best || cells.length > best.n) best = { d, n: cells.length };
  }
  return best?.d ?? null;
}

/** 'https://hse.ru/en/ # the English site' → 'https://hse.ru/en/': a '#' after whitespace starts a comment. */
function withoutComment(cell: string): string {
  return cell.replace(/\s+#.*$/s, '').trim();
}

/**
 * Read a seed file: one URL per line ('#' comments, whole-line or after whitespace), or a table
 * whose header line names a 'url' column (and optionally name, short, group), delimited by
 * , ; TAB or | as its header shows. Any invalid line rejects the whole file (nothing is written).
 */
export function parseSeedFile(text: string): SeedRow[] {
  const body = text.replace(/^\uFEFF/, '');
  const lines = body.split(/\r\n|\r|\n/);
  const headerAt = lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  const delimiter = headerAt < 0 ? null : headerDelimiter(lines[headerAt]!);
  let records: { line: number; url: string; name?: string; short?: string; group?: string }[];
  if (delimiter !== null) {
    let parsed: { record: Record<string, string>; info: { lines: number } }[];
    try {
      parsed = parseCsv(body, {
        delimiter, comment: '#', comment_no_infix: true, skip_empty_lines: true, trim: true, info: true, relax_column_count_less: true,
        columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()),
      }) as never;
    } catch (err) {
      throw new UsageError(`nothing imported: not valid ${delimiter === '\t' ? 'TSV' : `'${delimiter}'-separated CSV`}: ${(err as Error).message}`);
    }
    records = parsed.map(({ record, info }) => ({
      line: info.lines,
      url: withoutComment(record.url ?? ''),
      name: record.name || undefined,
      short: record.short || undefined,
      group: record.group || undefined,
    }));
  } else {
    records = lines
      .map((l, i) => ({ line: i + 1, url: withoutComment(l) }))
      .filter((r) => r.url !== '' && !r.url.startsWith('#'));
  }
  const bad: string[] = [];
  const rows: SeedRow[] = [];
  for (const r of records) {
    const url = parseSeedUrl(r.url);
    if (url) rows.push({ ...r, url });
    else bad.push(`line ${r.line}: '${r.url}'`);
  }
  if (bad.length) {
    const hint = delimiter === null && records.some((r) => /[,;\t|]/.test(r.url)) ? ` (a table needs a header line naming its columns: ${SEED_COLUMNS.join(',')})` : '';
    throw new UsageError(`nothing imported: not a usable http(s) URL at ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}${hint}`);
  }
  return rows;
}
