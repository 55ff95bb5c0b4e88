import { Command } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { checkExternals } from '../check/check-externals.js';
import { checkHtml, type CheckSummary } from '../check/check-html.js';
import { CHECK_COLUMNS, checkRows, rowCells, type CheckRow } from '../check/check-rows.js';
import { checkUrl, isBroken } from '../check/check-url.js';
import { HostGate } from '../net/host-gate.js';
import { createDispatcher, httpOptions } from '../net/http.js';
import { UsageError } from '../errors.js';
import { invalidLinks } from '../map/invalid-links.js';
import { readPageGraph } from '../store/page-graph-rows.js';
import { parseSetting, readSettings } from '../store/settings.js';
import { resolveSiteRef } from '../store/sites.js';
import { cachedChecks, saveCheck, siteExternals } from '../store/url-checks.js';
import { isTty, withDb } from './context.js';
import { parseResolve } from './crawl-command.js';
import { neutralizeFormula } from './formula-guard.js';
import { writeRows } from './row-output.js';
import { counted } from '../markup/counted.js';
import { quietOption, toldWritten, writeWhole } from './write-file.js';

interface CheckFlags {
  max?: string;
  recheck?: boolean;
  external: boolean;
  concurrency: string;
  delay?: string;
  proxy?: string;
  resolve: string[];
  json?: boolean;
  raw?: boolean;
  quiet?: boolean;
}

const FORMATS: [RegExp, 'csv' | 'jsonl' | 'html'][] = [[/\.csv$/i, 'csv'], [/\.jsonl$/i, 'jsonl'], [/\.html?$/i, 'html']];

export function checkCommand(): Command {
  return new Command('check')
    .description(
      "a site's errors: invalid internal links (fetched pages linking pages that answered 4xx/5xx or failed) and invalid external URLs " +
        '(each distinct URL checked once: HEAD, else GET; cached with its time). Without <file>: printed (--json); ' +
        "with one: .csv (RFC 4180), .jsonl or .html by extension, '-' = CSV to stdout",
    )
    .argument('<site>', 'site id, URL, host or short name')
    .argument('[file]', 'a .csv, .jsonl or .html file, or -')
    .option('--max <n>', 'check at most n external URLs now (cached ones are free)')
    .option('--recheck', 'ignore cached results: check every external URL again')
    .option('--no-external', 'internal links only: no request is made')
    .option('--concurrency <n>', 'external URLs checked at once (one request per host at a time)', '4')
    .option('--delay <ms>', "milliseconds between two requests to one host (default: the 'delay' setting)")
    .option('--proxy <url>', 'send every request through this HTTP proxy')
    .option('--resolve <host:port:addr>', 'connect to addr for host, like curl (repeatable)', (v: string, acc: string[]) => [...acc, v], [])
    .option('--json', 'print a JSON array (without <file>)')
    .option('--raw', "CSV and printed rows: keep cells starting with = + - @ as they are")
    .addOption(quietOption())
    .action(async (siteRef: string, file: string | undefined, flags: CheckFlags, cmd: Command) => {
      const format = file === undefined ? null : file === '-' ? 'csv' : (FORMATS.find(([re]) => re.test(file))?.[1] ?? null);
      if (file !== undefined && !format) throw new UsageError(`cannot tell the format of '${file}': use a .csv, .jsonl or .html name, or '-'`);
      if (file !== undefined && flags.json) throw new UsageError('--json is for printing: drop it, or drop <file>');
      const max = flags.max === undefined ? null : positive(flags.max, '--max', 0);
      const concurrency = positive(flags.concurrency, '--concurrency', 1);
      const resolve = parseResolve(flags.resolve);
      if (flags.proxy !== undefined && !/^https?:\/\/[^/]+/i.test(flags.proxy)) throw new UsageError(`--proxy must be an http(s) URL, got '${flags.proxy}'`);
      const delay = flags.delay === undefined ? undefined : parseSetting('delay', flags.delay);

      const { rows, summary } = await withDb(cmd, async (db) => {
        const site = resolveSiteRef(db, siteRef);
        if (!site) throw new UsageError(`no such site: '${siteRef}'`);
        const s = readSettings(db);
        const internal = invalidLinks(readPageGraph(db, site.id));
        const externals = flags.external ? siteExternals(db, site.id) : [];
        const http = httpOptions(s, resolve, flags.proxy ?? null);
        const dispatcher = createDispatcher(http);
        // The crawl's politeness: one request per host at a time, `delay` ms apart, back-off on failures.
        const gate = new HostGate({ delayMs: delay ?? s.delay, maxBackoffMs: s['max-backoff'] });
        const signal = new AbortController().signal;
        try {
          const ext = await checkExternals(
            externals,
            cachedChecks(db, externals.map((e) => e.key)),
            { max, recheck: flags.recheck ?? false, concurrency },
            (url) => checkUrl(url, dispatcher, http, gate, signal, s['page-timeout']),
            (c) => saveCheck(db, c),
          );
          const rows = checkRows(internal, ext.results);
          const summary: CheckSummary = {
            site: site.short ?? String(site.id), generated: new Date().toISOString(),
            invalidInternal: internal.reduce((n, t) => n + t.linkedFrom.length, 0),
            externalUrls: externals.length, externalChecked: ext.results.length,
            externalInvalid: ext.results.filter((r) => isBroken(r.check)).length, externalUnchecked: ext.unchecked,
          };
          const externalPart = flags.external
            ? `${summary.externalInvalid} of ${counted(summary.externalChecked, 'external URL')} invalid (${ext.checked} checked now, ${ext.cached} cached` +
              `${ext.unchecked ? `, ${ext.unchecked} not checked: --max` : ''})`
            : 'external URLs not checked (--no-external)';
          process.stderr.write(`${summary.site}: ${counted(summary.invalidInternal, 'invalid internal link')} to ${counted(internal.length, 'page')}; ${externalPart}\n`);
          if (ext.checked > 0 && ext.unanswered === ext.checked) {
            const first = ext.results.find((r) => r.check.status === null)?.check.error;
            // The likely cause depends on what was given: no proxy (offline, or one is needed), or the proxy itself.
            const cause = flags.proxy === undefined ? 'offline, or a proxy needed (--proxy)?' : `is the proxy ${flags.proxy} working, and does it let these through?`;
            process.stderr.write(
              `beebot: none of the ${counted(ext.checked, 'external URL')} checked now answered (${first}): ${cause} ` +
                'Their failures are cached: run again with --recheck once they can be reached\n',
            );
          }
          return { rows, summary };
        } finally {
          await dispatcher.close();
        }
      }, { mustExist: true });
      // As linkchecker and lychee: a non-zero exit when invalid links were found, after the whole output.
      if (summary.invalidInternal + summary.externalInvalid > 0) process.exitCode = 1;
      if (format === null) {
        const mode = flags.json ? 'json' : isTty() ? 'table' : 'tsv';
        return writeRows([...CHECK_COLUMNS], rows.map(rowCells), { mode, raw: flags.raw ?? false });
      }
      // A site's errors are few: the text is built whole.
      const text = format === 'html' ? checkHtml(rows, summary) : format === 'csv' ? csv(rows, flags.raw ?? false) : rows.map((r) => JSON.stringify(r) + '\n').join('');
      if (file === '-') return void process.stdout.write(text);
      writeWhole(file!, text);
      toldWritten(file!, counted(rows.length, 'row'), flags.quiet);
    });
}

/** RFC 4180: header row, CRLF, fields with line breaks quoted (see export-command.ts). */
function csv(rows: readonly CheckRow[], raw: boolean): string {
  return stringify(rows.map(rowCells), {
    header: true,
    columns: [...CHECK_COLUMNS],
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    cast: raw ? {} : { string: (v: string) => neutralizeFormula(v) },
  });
}

function positive(v: string, name: string, min: number): number {
  if (!/^\d+$/.test(v.trim()) || Number(v) < min) throw new UsageError(`${name} must be an integer >= ${min}, got '${v}'`);
  return Number(v);
}
