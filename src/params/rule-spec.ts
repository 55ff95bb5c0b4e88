import { EVERY_PATH, type ParamRule } from './rules.js';

/** A rule as a user types it (`required`, `required-from a,b`, `optional 1`, `dropped`), or why not. */
export function parseParamRule(kind: string, arg: string | undefined): ParamRule | string {
  switch (kind) {
    case 'required':
    case 'dropped':
      return arg === undefined ? { kind } : `'${kind}' takes no value (got '${arg}')`;
    case 'required-from': {
      const values = (arg ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');
      return values.length ? { kind, values: [...new Set(values)] } : `'required-from' needs its values, e.g. required-from asc,desc`;
    }
    case 'optional':
      return arg === undefined ? `'optional' needs its default value, e.g. optional 1 ('' for empty)` : { kind, default: arg };
    default:
      return `unknown rule '${kind}' (known: required, required-from <v1,v2>, optional <default>, dropped)`;
  }
}

/** The rule's argument as listed and stored: the values, the default, or null. */
export function ruleArg(rule: ParamRule): string | null {
  if (rule.kind === 'required-from') return rule.values.join(',');
  if (rule.kind === 'optional') return rule.default;
  return null;
}

/**
 * A script path as the rules match it: the path a URL parser gives (percent-encoded, dot
 * segments resolved), e.g. 'index.php' → '/index.php', or '*' (every path of the site, see
 * rules.ts). Null for anything with a query or fragment.
 */
export function scriptPath(input: string): string | null {
  const s = input.trim();
  if (s === EVERY_PATH) return EVERY_PATH;
  if (s === '' || /[?#]/.test(s) || /^[a-z][a-z0-9+.-]*:/i.test(s)) return null;
  return new URL(s.startsWith('/') ? s : `/${s}`, 'http://x').pathname;
}
