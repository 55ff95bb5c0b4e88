import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { canonicalLink } from '../params/canonical.js';
import { parseParamRule, ruleArg, scriptPath } from '../params/rule-spec.js';
import { ownerOf } from '../url/scope.js';
import { urlKey } from '../url/url.js';
import type { Db } from '../db/db.js';
import { listParamRules, loadParamRules, removeParamRules, setParamRule } from '../store/param-rules.js';
import { readSettings } from '../store/settings.js';
import { listSites, resolveSiteRef, siteRules, type Site } from '../store/sites.js';
import { isTty, printJson, withDb, withReadDb } from './context.js';
import { siteOption } from './filter-options.js';
import { formatTable } from './table.js';

export function paramsCommand(): Command {
  const params = new Command('params').description('URL parameter rules per site and script path: one URL names one content');

  params
    .command('set <site> <path> <param> <rule> [value]')
    .description('declare a parameter of a script: required | required-from <v1,v2> | optional <default> | dropped')
    .action(async (ref: string, path: string, param: string, kind: string, value: string | undefined, _o: unknown, cmd: Command) => {
      const rule = parseParamRule(kind, value);
      if (typeof rule === 'string') throw new UsageError(rule);
      const p = checkedPath(path);
      if (param === '') throw new UsageError('the parameter name is empty');
      await withDb(cmd, (db) => setParamRule(db, { siteId: site(db, ref).id, path: p, param, rule }), { mustExist: true });
    });

  params
    .command('list')
    .description('the rules, by site, script path and parameter')
    .option('--site <site>', 'only this site (id, URL, host or short name)')
    .option('--json', 'print JSON')
    .action(async (opts: { site?: string; json?: boolean }, cmd: Command) => {
      await withReadDb(cmd, (db) => {
        const rules = listParamRules(db, siteOption(db, opts.site));
        if (opts.json) {
          printJson(rules.map((r) => ({ site_id: r.siteId, path: r.path, param: r.param, rule: r.rule.kind, value: ruleArg(r.rule) })));
          return;
        }
        const names = new Map(listSites(db).map((s) => [s.id, s.short ?? String(s.id)]));
        const rows = rules.map((r) => [names.get(r.siteId) ?? String(r.siteId), r.path, r.param, r.rule.kind, ruleArg(r.rule)]);
        process.stdout.write(formatTable(['site', 'path', 'param', 'rule', 'value'], rows, isTty()));
      });
    });

  params
    .command('remove <site> <path> [param]')
    .description("remove a parameter's rule, or all rules of the script (it is then crawled as before)")
    .action(async (ref: string, path: string, param: string | undefined, _o: unknown, cmd: Command) => {
      const p = checkedPath(path);
      await withDb(cmd, (db) => {
        const n = removeParamRules(db, site(db, ref).id, p, param ?? null);
        if (n === 0) throw new UsageError(`no rule for ${p}${param === undefined ? '' : ` parameter '${param}'`}`);
        process.stdout.write(`removed ${n}\n`);
      }, { mustExist: true });
    });

  params
    .command('test <url>')
    .description('the key the crawl would store a URL under, or why it would be ignored')
    .option('--json', 'print JSON')
    .action(async (raw: string, opts: { json?: boolean }, cmd: Command) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new UsageError(`not a URL: '${raw}'`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`not an http(s) URL: '${raw}'`);
      url.hash = '';
      await withReadDb(cmd, (db) => {
        const s = readSettings(db);
        const owner = ownerOf(url, siteRules(db, s));
        if (!owner) throw new UsageError(`${url.href} is in none of the sites`);
        const rules = loadParamRules(db).get(owner.id);
        const c = rules ? canonicalLink(url.href, rules, s.normalize, s['session-ids']) : null;
        const result =
          c === null ? { site_id: owner.id, ignored: false, url: url.href, key: urlKey(url, s.normalize, s['session-ids']), note: null }
          : c.kind === 'kept' ? { site_id: owner.id, ignored: false, url: c.url, key: c.key, note: null }
          : { site_id: owner.id, ignored: true, url: url.href, key: null, note: c.note };
        if (opts.json) printJson(result);
        else process.stdout.write(result.ignored ? `ignored: ${result.note}\n` : `${result.key}\n`);
      });
    });
  return params;
}

function site(db: Db, ref: string): Site {
  const s = resolveSiteRef(db, ref);
  if (!s) throw new UsageError(`no such site: '${ref}'`);
  return s;
}

function checkedPath(path: string): string {
  const p = scriptPath(path);
  if (p === null) throw new UsageError(`not a script path: '${path}' (a path like /index.php, without ? or #)`);
  return p;
}
