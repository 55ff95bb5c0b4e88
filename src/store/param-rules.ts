import type { ParamRule, SiteParamRules } from '../params/rules.js';
import type { Db } from '../db/db.js';
import { binaryOrder, onConflictReplace, replaceInto, typed } from '../db/dialect.js';

export interface StoredParamRule {
  siteId: number;
  path: string;
  param: string;
  rule: ParamRule;
}

interface Row { site_id: number; path: string; param: string; kind: ParamRule['kind']; arg: string | null }

function toRule(kind: ParamRule['kind'], arg: string | null): ParamRule {
  if (kind === 'required-from') return { kind, values: JSON.parse(arg ?? '[]') as string[] };
  if (kind === 'optional') return { kind, default: arg ?? '' };
  return { kind };
}

/** Declare (or redeclare) one parameter of a script. */
export function setParamRule(db: Db, r: StoredParamRule): void {
  const arg = r.rule.kind === 'required-from' ? JSON.stringify(r.rule.values) : r.rule.kind === 'optional' ? r.rule.default : null;
  db.prepare(
    `${replaceInto(db)} INTO param_rules (site_id, path, param, kind, arg) VALUES (?, ?, ?, ?, ?)${onConflictReplace(db, 'site_id, path, param', ['kind', 'arg'])}`,
  ).run(r.siteId, r.path, r.param, r.rule.kind, arg);
}

/** Remove one parameter's rule, or every rule of the script when `param` is null; how many went. */
export function removeParamRules(db: Db, siteId: number, path: string, param: string | null): number {
  return param === null
    ? db.prepare(`DELETE FROM param_rules WHERE site_id = ? AND path = ?`).run(siteId, path).changes
    : db.prepare(`DELETE FROM param_rules WHERE site_id = ? AND path = ? AND param = ?`).run(siteId, path, param).changes;
}

export function listParamRules(db: Db, siteId: number | null = null): StoredParamRule[] {
  const rows = db
    .prepare(
      `SELECT site_id, path, param, kind, arg FROM param_rules WHERE ${typed(db, '@site', 'bigint')} IS NULL OR site_id = ${typed(db, '@site', 'bigint')}
        ORDER BY site_id, ${binaryOrder(db, 'path')}, ${binaryOrder(db, 'param')}`,
    )
    .all({ site: siteId }) as Row[];
  return rows.map((r) => ({ siteId: r.site_id, path: r.path, param: r.param, rule: toRule(r.kind, r.arg) }));
}

/** Every site's rules as the crawl applies them; a site without rules is absent. */
export function loadParamRules(db: Db): Map<number, SiteParamRules> {
  const out = new Map<number, Map<string, Map<string, ParamRule>>>();
  for (const r of listParamRules(db)) {
    const site = out.get(r.siteId) ?? out.set(r.siteId, new Map()).get(r.siteId)!;
    const script = site.get(r.path) ?? site.set(r.path, new Map()).get(r.path)!;
    script.set(r.param, r.rule);
  }
  return out;
}
