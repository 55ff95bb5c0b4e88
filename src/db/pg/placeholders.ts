/**
 * The store's SQL binds values the SQLite way: `?` in order, or `@name` / `:name` / `$name` from
 * one object. PostgreSQL numbers them ($1, $2, …): this rewrites one into the other, skipping
 * string literals, quoted identifiers and comments. A name used twice gets one number.
 *
 * It also quotes camelCase aliases (`AS siteId` → `AS "siteId"`): SQLite keeps an alias's case,
 * PostgreSQL folds unquoted names to lower case, and the rows' keys are the aliases.
 */
export function toPositional(sql: string): { text: string; names: string[] | null; count: number } {
  let out = '';
  const names: string[] = [];
  let count = 0;
  let named = false;
  for (let i = 0; i < sql.length; ) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closing(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === '?') {
      out += `$${++count}`;
      i++;
    } else if ((c === '@' || c === '$' || (c === ':' && sql[i + 1] !== ':' && sql[i - 1] !== ':')) && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))!;
      let at = names.indexOf(m[0]);
      if (at < 0) at = names.push(m[0]) - 1;
      named = true;
      out += `$${at + 1}`;
      i += 1 + m[0].length;
    } else if ((c === 'A' || c === 'a') && /^as\s+[A-Za-z_]/i.test(sql.slice(i, i + 4)) && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? ' ')) {
      const m = /^(as\s+)([A-Za-z_][A-Za-z0-9_]*)/i.exec(sql.slice(i))!;
      const alias = m[2]!;
      out += m[1] + (/[a-z]/.test(alias) && /[A-Z]/.test(alias) ? `"${alias}"` : alias);
      i += m[0].length;
    } else {
      out += c;
      i++;
    }
  }
  if (named && count) throw new Error('SQL mixes ? and named parameters');
  return named ? { text: out, names, count: names.length } : { text: out, names: null, count };
}

/** The index after a quoted run starting at `start` ('' and "" are escaped quotes). */
function closing(sql: string, start: number, q: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] === q) {
      if (sql[i + 1] === q) i++;
      else return i + 1;
    }
  }
  return sql.length;
}
