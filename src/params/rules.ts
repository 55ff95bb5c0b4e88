/**
 * URL parameter rules (the web-mapping article's §2.2): a dynamic page is named by its script
 * path and the parameters the script reads. Per site and script path each parameter is declared
 * `required`, `required-from` a set, `optional` with a default, or `dropped`; a parameter the
 * script does not declare is dropped too. What is left is sorted by name, so one URL names one
 * content. A URL that breaks a rule names no content: the crawl stores it as `ignored`.
 */
export type ParamRule =
  | { kind: 'required' }
  | { kind: 'required-from'; values: readonly string[] }
  | { kind: 'optional'; default: string }
  | { kind: 'dropped' };

export type ParamKind = ParamRule['kind'];
export const paramKinds: readonly ParamKind[] = ['required', 'required-from', 'optional', 'dropped'];

/** The path whose rules apply to every path of a site (`params set <site> '*' utm_source dropped`). */
export const EVERY_PATH = '*';

/** One site's rules: script path (as the URL spells it, e.g. '/index.php') → parameter → rule. */
export type SiteParamRules = ReadonlyMap<string, ReadonlyMap<string, ParamRule>>;

export type ParamVerdict =
  /** `search`: the canonical query, '' or '?a=1&b=2' */
  | { kind: 'kept'; search: string }
  /** `note`: which rule the URL breaks */
  | { kind: 'ignored'; note: string };

/**
 * Apply a site's rules to a URL's path and query (`search` as URL#search gives it: '' or '?…').
 * Null when the path has no rules: the URL stays as it is. Kept parameters keep their spelling
 * (so the server gets what the page linked); defaults are filled in percent-encoded. A declared
 * parameter given twice is ambiguous and breaks the rules; undeclared ones are dropped unread.
 */
export function applyParamRules(pathname: string, search: string, rules: SiteParamRules): ParamVerdict | null {
  const own = rules.get(pathname);
  const every = rules.get(EVERY_PATH);
  if (!own && !every) return null;
  // A path's own rules declare its script (undeclared parameters dropped); '*' rules alone only
  // rule the parameters they name, and the path's own rule for a parameter wins over '*'.
  const script = own ? new Map([...(every ?? []), ...own]) : every!;
  const keepUndeclared = !own;
  const given = new Map<string, { raw: string; value: string }>();
  const kept: [string, string][] = [];
  for (const piece of search.slice(1).split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = formDecode(eq < 0 ? piece : piece.slice(0, eq));
    const rule = script.get(name);
    if (!rule && keepUndeclared) {
      kept.push([name, piece]);
      continue;
    }
    if (!rule || rule.kind === 'dropped') continue;
    if (given.has(name)) return { kind: 'ignored', note: `params: '${name}' given more than once` };
    given.set(name, { raw: piece, value: eq < 0 ? '' : formDecode(piece.slice(eq + 1)) });
  }
  for (const [name, rule] of script) {
    const g = given.get(name);
    switch (rule.kind) {
      case 'required':
        if (!g || g.value === '') return { kind: 'ignored', note: `params: '${name}' is required` };
        kept.push([name, g.raw]);
        break;
      case 'required-from':
        if (!g) return { kind: 'ignored', note: `params: '${name}' is required` };
        if (!rule.values.includes(g.value)) return { kind: 'ignored', note: `params: '${name}=${g.value}' is not one of ${rule.values.join(',')}` };
        kept.push([name, g.raw]);
        break;
      case 'optional':
        kept.push([name, g ? g.raw : `${encodeURIComponent(name)}=${encodeURIComponent(rule.default)}`]);
        break;
      case 'dropped':
        break;
    }
  }
  // By code unit, not locale: the same order on every machine.
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { kind: 'kept', search: kept.length ? '?' + kept.map(([, raw]) => raw).join('&') : '' };
}

/** A query component as a form decodes it ('+' is a space); a malformed escape stays as spelled. */
function formDecode(s: string): string {
  const spaced = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
