import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { mapHtml } from '../map/map-html.js';
import { mapXml } from '../map/map-xml.js';
import { buildSiteMap } from '../map/site-map.js';
import { readPageGraph } from '../store/page-graph-rows.js';
import { resolveSiteRef } from '../store/sites.js';
import { withReadDb } from './context.js';
import { counted } from '../markup/counted.js';
import { quietOption, toldWritten, writeWhole } from './write-file.js';

const FORMATS: [RegExp, 'xml' | 'html' | 'json'][] = [[/\.xml$/i, 'xml'], [/\.html?$/i, 'html'], [/\.json$/i, 'json']];

export function mapCommand(): Command {
  return new Command('map')
    .description(
      "write a site's hierarchical map: the breadth-first spanning tree of its pages from the start page, each page once, " +
        'a page linked from several pages of one layer under the one of highest PageRank (k = 0.85); ' +
        "format by extension: .xml (schema/beebot-map.xsd), .html (one self-contained page), .json; '-' writes XML to stdout",
    )
    .argument('<site>', 'site id, URL, host or short name')
    .argument('<file>', 'a .xml, .html or .json file, or -')
    .addOption(quietOption())
    .action(async (siteRef: string, file: string, flags: { quiet?: boolean }, cmd: Command) => {
      const format = file === '-' ? 'xml' : (FORMATS.find(([re]) => re.test(file))?.[1] ?? null);
      if (!format) throw new UsageError(`cannot tell the format of '${file}': use a .xml, .html or .json name, or '-'`);
      let pages = 0;
      const text = await withReadDb(cmd, (db) => {
        const site = resolveSiteRef(db, siteRef);
        if (!site) throw new UsageError(`no such site: '${siteRef}'`);
        const map = buildSiteMap(readPageGraph(db, site.id));
        pages = map.pages;
        const o = { site: site.short ?? String(site.id), generated: new Date().toISOString() };
        if (format === 'xml') return mapXml(map, o);
        if (format === 'html') return mapHtml(map, o);
        return JSON.stringify({ site: o.site, generated: o.generated, pagerank: 'unnormalized', ...map }, null, 1) + '\n';
      });
      if (file === '-') return void process.stdout.write(text);
      writeWhole(file, text);
      toldWritten(file, `the map of ${counted(pages, 'page')}`, flags.quiet);
    });
}
