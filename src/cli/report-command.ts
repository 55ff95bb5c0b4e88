import { basename } from 'node:path';
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { readReport } from '../report/report-data.js';
import { renderReport } from '../report/render-html.js';
import { rendererBundle } from '../report/renderer-bundle.js';
import type { ReportNetwork } from '../report/network-section.js';
import { interlinkMatrix } from '../site-graph/interlinks.js';
import { readNetwork } from '../site-graph/site-network.js';
import type { NodeLevel } from '../site-graph/site-graph.js';
import type { Db } from '../db/db.js';
import { dbPath, withReadDb } from './context.js';
import { counted } from '../markup/counted.js';
import { quietOption, toldWritten, writeWhole } from './write-file.js';

export function reportCommand(): Command {
  return new Command('report')
    .description(
      "write one self-contained HTML page (nothing fetched when viewed): per-site table, harvest curves, which site the policy chose, top external hosts, the network of sites and the hosts they link (with interlinks and co-links), crawl settings; '-' writes to stdout",
    )
    .argument('<file>', 'a .html file, or -')
    .option('--title <text>', 'page title', 'beebot crawl report')
    .option('--top <n>', 'external hosts listed', '25')
    .addOption(new Option('--node <level>', 'network: outside nodes are hosts or registrable domains').choices(['host', 'domain']).default('host'))
    .addOption(quietOption())
    .action(async (file: string, flags: { title: string; top: string; node: NodeLevel; quiet?: boolean }, cmd: Command) => {
      if (file !== '-' && !/\.html?$/i.test(file)) throw new UsageError(`the report is HTML: use a .html name or '-', got '${file}'`);
      if (!/^\d+$/.test(flags.top) || Number(flags.top) < 1) throw new UsageError(`--top must be an integer >= 1, got '${flags.top}'`);
      const [data, network] = await withReadDb(cmd, (db) => [
        readReport(db, { title: flags.title, database: basename(dbPath(cmd)), top: Number(flags.top), now: new Date() }),
        reportNetwork(db, flags.node),
      ] as const);
      const html = renderReport(data, { network, renderer: rendererBundle() });
      if (file === '-') return void process.stdout.write(html);
      // The page is small (curves thinned to a fixed size, the network capped): write it whole.
      writeWhole(file, html);
      toldWritten(file, `the report of ${counted(data.sites.length, 'site')}`, flags.quiet);
    });
}

/** The site graph laid out, with the interlink matrix over the sites that link or are linked by another. */
function reportNetwork(db: Db, level: NodeLevel): ReportNetwork {
  const { network, sites, interlinks, colinks } = readNetwork(db, level);
  const involved = new Set(interlinks.flatMap((x) => [x.source, x.target]));
  const matrixSites = sites.filter((s) => involved.has(s));
  return { ...network, matrix: { sites: matrixSites, counts: interlinkMatrix(interlinks, matrixSites) }, colinks };
}
