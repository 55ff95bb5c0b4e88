/**
 * robots.txt path matching (RFC 9309 2.2.2), pure and compiled once per group: the longest
 * matching pattern wins, Allow wins a tie, `*` matches any run of characters and a final `$`
 * anchors the end. robots-parser's matcher walks a set of positions per pattern character, so a
 * file of 2,000 patterns like `/*a*a*…*b` cost seconds per URL. Here a pattern is split at its `*`s
 * into literal pieces, and the pieces are found left to right, each at its first place after the
 * one before: with `*` as the only wildcard, that first place leaves the most room for the rest, so
 * a pattern that can match at all matches this way. One pattern costs at most one pass over the path.
 */

export interface RobotsRule {
  /** As written in the file, after percent-encoding normalisation. */
  pattern: string;
  allow: boolean;
}

/** The rules of one group, longest first, each split into its literal pieces. */
export interface CompiledRules {
  rules: readonly CompiledRule[];
}

interface CompiledRule {
  allow: boolean;
  /** The text between `*`s; the first is anchored at the start of the path. */
  pieces: readonly string[];
  /** The pattern ended in `$`: the last piece must end the path. */
  anchored: boolean;
}

/** Order rules by priority (length, then Allow) and split each once. Duplicates are dropped. */
export function compileRules(rules: readonly RobotsRule[]): CompiledRules {
  const seen = new Set<string>();
  const unique = rules.filter((r) => {
    const key = `${r.allow ? 'A' : 'D'}${r.pattern}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  unique.sort((a, b) => b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow));
  return { rules: unique.map(compileRule) };
}

function compileRule(r: RobotsRule): CompiledRule {
  const anchored = r.pattern.endsWith('$');
  const body = anchored ? r.pattern.slice(0, -1) : r.pattern;
  return { allow: r.allow, pieces: body.split('*'), anchored };
}

/** The deciding rule's verdict for a path (path plus query), or null when no rule matches. */
export function decide(compiled: CompiledRules, path: string): boolean | null {
  // Rules are in priority order: the first that matches is the longest, Allow before Disallow.
  for (const rule of compiled.rules) if (matches(rule, path)) return rule.allow;
  return null;
}

/** Does the rule match a prefix of the path (the whole path when anchored)? */
function matches(rule: CompiledRule, path: string): boolean {
  const { pieces, anchored } = rule;
  const first = pieces[0]!;
  if (!path.startsWith(first)) return false;
  let pos = first.length;
  const last = pieces.length - 1;
  if (last === 0) return !anchored || pos === path.length;
  for (let i = 1; i < last; i++) {
    const at = path.indexOf(pieces[i]!, pos);
    if (at < 0) return false;
    pos = at + pieces[i]!.length;
  }
  const tail = pieces[last]!;
  if (anchored) return path.length - tail.length >= pos && path.endsWith(tail);
  return path.indexOf(tail, pos) >= 0;
}
