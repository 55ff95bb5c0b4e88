import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { companionHosts, type HostLevel } from '../store/hosts.js';
import { listSites } from '../store/sites.js';
import { isTty, withReadDb } from './context.js';
import { parseLimit, siteOption, TABLE_ROWS } from './filter-options.js';
import { writeRows, type RowOutput } from './row-output.js';

interface HostsFlags {
  site?: string;
  by: HostLevel;
  minSites?: string;
  limit?: string;
  json?: boolean;
}

export function hostsCommand(): Command {
  return new Command('hosts')
    .description(
      'the companion set: outside hosts the sites link to, most shared first: sites linking to each, ' +
        'pairs ((page, external URL) pairs, as status and export count them) and linking pages',
    )
    .option('--site <id>', 'only links of this site (id, URL, host or short name)')
    .addOption(new Option('--by <level>', 'group by host name or by registrable domain').choices(['host', 'domain']).default('host'))
    .option('--min-sites <n>', 'only hosts linked from at least n target sites (2 = the shared companion set)')
    .option('--limit <n>', `at most n rows (default on a terminal: ${TABLE_ROWS}; piped or --json: all)`)
    .option('--json', 'print a JSON array of objects')
    .action(async (flags: HostsFlags, cmd: Command) => {
      const limit = parseLimit(flags.limit);
      if (flags.minSites !== undefined && !/^\d+$/.test(flags.minSites.trim())) {
        throw new UsageError(`--min-sites must be an integer >= 0, got '${flags.minSites}'`);
      }
      await withReadDb(cmd, async (db) => {
        const siteId = siteOption(db, flags.site);
        const out: RowOutput = { mode: flags.json ? 'json' : isTty() ? 'table' : 'tsv', raw: false };
        const rows = companionHosts(db, { by: flags.by, siteId, minSites: Number(flags.minSites ?? 0), limit });
        const shown = limit === null && out.mode === 'table' ? rows.slice(0, TABLE_ROWS) : rows;
        const target = new Map(listSites(db).map((s) => [s.id, s.short ?? new URL(s.url).hostname]));
        if (flags.by === 'host') {
          const header = ['host', 'domain', 'sites', 'pairs', 'pages', out.mode === 'json' ? 'target_site_id' : 'target_site'];
          await writeRows(header, shown.map((r) => [r.name, r.domain, r.sites, r.links, r.pages, label(r.targetSiteId, out, target)]), out);
        } else {
          const header = ['domain', 'hosts', 'sites', 'pairs', 'pages', out.mode === 'json' ? 'target_site_id' : 'target_site'];
          await writeRows(header, shown.map((r) => [r.name, r.hosts, r.sites, r.links, r.pages, label(r.targetSiteId, out, target)]), out);
        }
        if (shown.length < rows.length) process.stdout.write(`… ${rows.length - shown.length} more of ${rows.length}: use --limit <n>, or pipe the output for all\n`);
      });
    });
}

/** A host that is itself one of the target sites: its id in JSON, its short name in tables. */
function label(id: number | null, out: RowOutput, names: Map<number, string>): string | number | null {
  if (id === null) return null;
  return out.mode === 'json' ? id : (names.get(id) ?? String(id));
}
