import { UsageError } from '../errors.js';
import { BLOCKS } from './weights.js';

// The tsvector's weight letter of each text block (src/db/pg/schema.ts: title A … body D).
const WEIGHT: Record<string, string> = Object.fromEntries(BLOCKS.map((b, i) => [b, 'ABCD'[i]!]));

/**
 * The FTS5 query language `beebot search` documents (words, all must match; "a phrase"; OR; NOT;
 * prefix*; title:word; parentheses), written as a PostgreSQL tsquery text for to_tsquery('simple',
 * …). Words are split as FTS5's unicode61 splits them (runs of letters and digits; a word of
 * several runs is a phrase) and lowercased; the simple configuration does the same, without
 * removing diacritics (FTS5 here does). A query this cannot read is a usage error.
 */
export function ftsToTsquery(query: string): string {
  const tokens = query.match(/"[^"]*"|\(|\)|[^\s()"]+/gu) ?? [];
  const out: string[] = [];
  let open = 0;
  let wantOperand = true;
  for (const token of tokens) {
    if (token === '(') {
      if (!wantOperand) out.push('&');
      out.push('(');
      open++;
      continue;
    }
    if (token === ')') {
      if (wantOperand || --open < 0) throw bad(query);
      out.push(')');
      continue;
    }
    if (token === 'OR' || token === 'AND' || token === 'NOT') {
      if (wantOperand) throw bad(query);
      out.push(token === 'OR' ? '|' : token === 'AND' ? '&' : '& !');
      wantOperand = true;
      continue;
    }
    if (!wantOperand) out.push('&');
    out.push(operand(token, query));
    wantOperand = false;
  }
  if (wantOperand || open !== 0) throw bad(query);
  return out.join(' ');
}

/** A word, "phrase", prefix* or column:operand as a tsquery term. */
function operand(token: string, query: string): string {
  let weight = '';
  const col = /^(\w+):(.+)$/u.exec(token);
  if (col && WEIGHT[col[1]!.toLowerCase()]) {
    weight = WEIGHT[col[1]!.toLowerCase()]!;
    token = col[2]!;
  }
  const prefix = token.endsWith('*');
  const words = (prefix ? token.slice(0, -1) : token).toLowerCase().match(/[\p{L}\p{N}]+/gu);
  if (!words) throw bad(query);
  const label = (w: string, last: boolean) => `'${w}'${weight || (prefix && last) ? ':' : ''}${prefix && last ? '*' : ''}${weight}`;
  const terms = words.map((w, i) => label(w, i === words.length - 1));
  return terms.length === 1 ? terms[0]! : `(${terms.join(' <-> ')})`;
}

const bad = (query: string) => new UsageError(`cannot read the query '${query}'`);
