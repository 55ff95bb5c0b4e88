import { urlHost } from './host.js';

/**
 * Which site a user means by what they type (`map`, `check`, `params`, `seeds remove`, `--site`):
 * its id, its short name, its start URL (a bare domain meaning https://, `www.` and a trailing
 * slash left aside), or the host alone when one site is on it ('scikit-learn.org' for
 * http://scikit-learn.org/1.2/index.html). Pure: over the sites' ids, short names and URLs.
 */
export interface NamedSite {
  id: number;
  url: string;
  short: string | null;
}

export type SiteRef<S> = { site: S } | { none: true } | { several: S[] };

export function siteNamed<S extends NamedSite>(sites: readonly S[], ref: string): SiteRef<S> {
  const found = (s: S | undefined): SiteRef<S> => (s ? { site: s } : { none: true });
  if (/^\d+$/.test(ref)) return found(sites.find((s) => s.id === Number(ref)));
  const exact = sites.find((s) => s.short === ref || s.url === ref || s.url === ref + '/' || sameSeed(s.url, ref));
  if (exact) return { site: exact };
  const host = bareHost(ref);
  if (host === null) return { none: true };
  const on = sites.filter((s) => hostOf(s.url) === host);
  return on.length > 1 ? { several: on } : found(on[0]);
}

const withScheme = (ref: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref) ? ref : `https://${ref}`);

/** A stored site URL's host without `www.`. */
const hostOf = (url: string): string | undefined => urlHost(url)?.replace(/^www\./, '');

/** The host a reference names when it is a host alone (a path of '/' at most), or null. */
function bareHost(ref: string): string | null {
  try {
    const u = new URL(withScheme(ref));
    return u.pathname === '/' && u.search === '' ? u.hostname.replace(/^www\./, '') : null;
  } catch {
    return null;
  }
}

function sameSeed(siteUrl: string, ref: string): boolean {
  try {
    const a = new URL(siteUrl);
    const b = new URL(withScheme(ref));
    return a.hostname.replace(/^www\./, '') === b.hostname.replace(/^www\./, '') && a.pathname === b.pathname;
  } catch {
    return false;
  }
}
