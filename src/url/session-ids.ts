/**
 * Session ids in URLs: a server that puts a new one into every link (`/s;jsessionid=A1/p`,
 * `?PHPSESSID=…`) names each page anew on every visit, and a crawl follows the same pages round
 * and round until the level cap. The names are the ones Heritrix (StripSessionIDs,
 * StripSessionCFIDs) and Nutch (regex-normalize: `_?(l|j|bv_)?(sid|phpsessid|sessionid)`) strip.
 * A bare `sid` is a session id only with a 32-character token as its value (Heritrix's rule): a
 * short `sid=3` is more often a site or section id.
 */
const SESSION_NAME = /^(?:_?(?:l|j|bv_)?(?:phpsessid|sessionid)|aspsessionid[a-z]{8}|cfid|cftoken)$/i;
const SID_NAME = /^_?(?:l|j|bv_)?sid$/i;
const TOKEN = /^[0-9a-z]{32}$/i;

export type SessionIds = 'strip' | 'keep';

/** Whether `name=value` (a path parameter or a query parameter, as spelled) carries a session id. */
export function isSessionParam(name: string, value: string): boolean {
  return SESSION_NAME.test(name) || (SID_NAME.test(name) && TOKEN.test(value));
}

/**
 * The path without session path parameters (`;jsessionid=…` up to the next `;` or `/`) and the
 * query without session parameters; every other piece keeps its spelling and order.
 */
export function withoutSessionIds(pathname: string, search: string): { pathname: string; search: string } {
  const path = pathname.includes(';')
    ? pathname
        .split('/')
        .map((segment) => {
          const [head, ...params] = segment.split(';');
          return [head, ...params.filter((p) => !isSessionParam(...nameValue(p)))].join(';');
        })
        .join('/')
    : pathname;
  if (search.length <= 1) return { pathname: path, search };
  const pieces = search.slice(1).split('&');
  const kept = pieces.filter((p) => p === '' || !isSessionParam(...nameValue(p)));
  if (kept.length === pieces.length) return { pathname: path, search };
  return { pathname: path, search: kept.some((p) => p !== '') ? '?' + kept.join('&') : '' };
}

function nameValue(piece: string): [string, string] {
  const eq = piece.indexOf('=');
  return eq < 0 ? [piece, ''] : [piece.slice(0, eq), piece.slice(eq + 1)];
}

/** `u` without its session ids: `u` itself when it has none (the usual case, and no copy made). */
export function stripSessionIds(u: URL): URL {
  if (!u.pathname.includes(';') && !/sess|sid|cfid|cftoken/i.test(u.search)) return u;
  const v = withoutSessionIds(u.pathname, u.search);
  if (v.pathname === u.pathname && v.search === u.search) return u;
  const out = new URL(u.href);
  out.pathname = v.pathname;
  out.search = v.search;
  return out;
}
