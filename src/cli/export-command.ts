import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { stringify } from 'csv-stringify';
import { BeebotError, UsageError } from '../errors.js';
import { exportColumns, exportRows, type LinkKind } from '../store/export.js';
import { resolveSiteRef } from '../store/sites.js';
import { withDb } from './context.js';

export function exportCommand(): Command {
  return new Command('export')
    .description("write links to <file>: .csv (RFC 4180, header row) or .jsonl by extension; '-' writes CSV to stdout")
    .argument('<file>')
    .addOption(new Option('--kind <kind>', 'which links').choices(['external', 'internal', 'bad']).default('external'))
    .option('--site <id>', 'only this site (id, URL or short name)')
    .action(async (file: string, opts: { kind: LinkKind; site?: string }, cmd: Command) => {
      const format = file === '-' || /\.csv$/i.test(file) ? 'csv' : /\.jsonl$/i.test(file) ? 'jsonl' : null;
      if (!format) throw new UsageError(`cannot tell the format of '${file}': use a .csv or .jsonl name, or '-'`);
      await withDb(cmd, async (db) => {
        let siteId: number | null = null;
        if (opts.site !== undefined) {
          const s = resolveSiteRef(db, opts.site);
          if (!s) throw new UsageError(`no such site: '${opts.site}'`);
          siteId = s.id;
        }
        const columns = exportColumns(opts.kind);
        const rows = Readable.from(exportRows(db, opts.kind, siteId));
        const encode =
          format === 'csv'
            ? stringify({ header: true, columns, record_delimiter: 'windows', quoted_match: /[\r\n]/ })
            : new Transform({
                objectMode: true,
                transform(row: unknown[], _enc, done) {
                  done(null, JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, row[i]]))) + '\n');
                },
              });
        if (file === '-') return pipeline(rows, encode, process.stdout as Writable, { end: false });
        // Write beside the target and rename: a failed export never leaves a half-written file.
        const tmp = `${file}.part`;
        try {
          await pipeline(rows, encode, createWriteStream(tmp));
          renameSync(tmp, file);
        } catch (err) {
          rmSync(tmp, { force: true });
          const code = (err as { code?: string }).code;
          if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw new BeebotError(`cannot write ${file}`);
          throw err;
        }
      });
    });
}
