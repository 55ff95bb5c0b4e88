import { Argument, Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Db } from '../db/db.js';
import { countRows, exportColumns, exportRows } from '../store/export.js';
import { linkKinds, type FilterFlags, type LinkFilter, type LinkKind } from '../store/link-filter.js';
import { deleteLinks, planDelete } from '../store/links.js';
import { dbPath, isTty, withDb, withReadDb } from './context.js';
import { confirm } from './confirm.js';
import { isPostgresUrl } from '../db/pg/url.js';
import { holdCrawlLock } from './crawl-lock.js';
import { addFilterOptions, parseLimit, readFilter, TABLE_ROWS } from './filter-options.js';
import { writeRows, type RowOutput } from './row-output.js';

interface ListFlags extends FilterFlags {
  site?: string;
  limit?: string;
  json?: boolean;
  raw?: boolean;
}

interface DeleteFlags extends FilterFlags {
  site?: string;
  all?: boolean;
  yes?: boolean;
  dryRun?: boolean;
}

export function linksCommand(): Command {
  const links = new Command('links').description(
    'list (or delete) links: a table on a terminal, tab-separated when piped, JSON with --json; works while a crawl runs',
  );
  for (const kind of linkKinds) {
    addFilterOptions(links.command(kind).description(`list ${kind} links, oldest first (columns as in export)`))
      .option('--limit <n>', `at most n rows (default on a terminal: ${TABLE_ROWS}; piped or --json: all)`)
      .option('--json', 'print a JSON array of objects')
      .option('--raw', "piped output: keep cells starting with = + - @ as they are (default: prefixed with ')")
      .action(async (flags: ListFlags, cmd: Command) => {
        const limit = parseLimit(flags.limit);
        await withReadDb(cmd, (db) => list(db, kind, flags, limit));
      });
  }

  const del = links
    .command('delete')
    .description(
      'delete the links a filter selects (shows them first, asks unless --yes); a resumed crawl does not store them again for their site. ' +
        'Internal: only unfetched pages (the frontier) can be deleted, not while a crawl runs',
    )
    .addArgument(new Argument('<kind>', 'which links').choices(linkKinds))
    .option('--all', 'no filter: every link of this kind (of --site, if given)')
    .option('--yes', 'do not ask for confirmation')
    .option('--dry-run', 'only show what would be deleted');
  addFilterOptions(del).action(async (kind: LinkKind, flags: DeleteFlags, cmd: Command) => {
    const filtered = ['host', 'grep', 'level', 'since'].some((k) => flags[k as keyof FilterFlags] !== undefined);
    if (!filtered && !flags.all) {
      throw new UsageError(`say which ${kind} links to delete (--host, --grep, --level, --since), or --all for every one${flags.site ? ' of the site' : ''}`);
    }
    // Deleting pages edits the frontier a running crawl reads from: hold the crawl lock meanwhile.
    // A PostgreSQL store has no file beside it to lock (its workers run on many machines): there,
    // a deleted page a worker holds just fails that worker's commit of it.
    const release =
      kind === 'internal' && !flags.dryRun && !isPostgresUrl(dbPath(cmd))
        ? holdCrawlLock(dbPath(cmd), (pid) => `a crawl (pid ${pid}) is running on ${dbPath(cmd)}: stop it before deleting internal links (external and bad links can be deleted while it runs)`)
        : () => undefined;
    try {
      await withDb(cmd, async (db) => remove(db, kind, readFilter(db, flags, kind), flags), { mustExist: true });
    } finally {
      release();
    }
  });
  return links;
}

async function list(db: Db, kind: LinkKind, flags: ListFlags, limit: number | null): Promise<void> {
  const filter = readFilter(db, flags, kind);
  const out: RowOutput = { mode: flags.json ? 'json' : isTty() ? 'table' : 'tsv', raw: Boolean(flags.raw) };
  const shown = limit ?? (out.mode === 'table' ? TABLE_ROWS : null);
  await writeRows(exportColumns(kind), exportRows(db, kind, filter, { limit: shown }), out);
  if (out.mode === 'table' && limit === null) {
    const total = countRows(db, kind, filter);
    if (total > TABLE_ROWS) process.stdout.write(`… ${total - TABLE_ROWS} more of ${total}: use --limit <n>, or pipe the output for all\n`);
  }
}

async function remove(db: Db, kind: LinkKind, filter: LinkFilter, flags: DeleteFlags): Promise<void> {
  const plan = planDelete(db, kind, filter);
  const noun = `${kind} link${plan.deletable === 1 ? '' : 's'}`;
  const kept = plan.matching - plan.deletable;
  if (plan.deletable > 0) {
    const sample = 10;
    await writeRows(exportColumns(kind), exportRows(db, kind, filter, { limit: sample, deletableOnly: true }), { mode: isTty() ? 'table' : 'tsv', raw: false });
    if (plan.deletable > sample) process.stdout.write(`… and ${plan.deletable - sample} more\n`);
  }
  const keptNote = kept > 0 ? `; ${kept} matching fetched or start page${kept === 1 ? ' is' : 's are'} kept (only unfetched pages can be deleted)` : '';
  process.stdout.write(`${plan.deletable} ${noun} to delete${keptNote}\n`);
  if (plan.deletable === 0 || flags.dryRun) return;
  if (!flags.yes && !(await confirm(`delete ${plan.deletable} ${noun}? [y/N] `))) {
    throw new UsageError('nothing deleted (pass --yes to delete without asking)');
  }
  const n = deleteLinks(db, kind, filter);
  process.stdout.write(`deleted ${n} ${kind} link${n === 1 ? '' : 's'}; a resumed crawl will not store them again for their site\n`);
}
