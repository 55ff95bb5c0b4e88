import { getDomain } from 'tldts';
import { sqliteOf, type Db } from './db.js';

// Stored URLs are WHATWG-serialized (lowercase punycode host), so a regex finds the host at a
// fraction of the cost of `new URL` — it runs once per row over tables of millions of links.
const HOST = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]/]*\]|[^:/?#]*)/i;

/** The host of a stored URL, or null when it has none. */
export function urlHost(url: string): string | null {
  const m = HOST.exec(url);
  return m && m[1] ? m[1].toLowerCase() : null;
}

/** The registrable domain (Public Suffix List, private suffixes on, like scope=domain) of a host. */
export function hostDomain(host: string): string {
  return getDomain(host, { allowPrivateDomains: true }) ?? host.replace(/^www\./, '');
}

/** host equals `want` or is a subdomain of it. */
export function hostMatches(host: string | null, want: string): boolean {
  return host !== null && (host === want || host.endsWith('.' + want));
}

/**
 * Make the URL rules callable from SQL, so filters and GROUP BYs run inside SQLite while rows
 * stream (nothing collected in JavaScript). Case-insensitive matching is done here too: SQLite's
 * own LIKE and lower() only fold ASCII, and anchor texts are often Cyrillic.
 */
export function registerUrlFunctions(store: Db): void {
  const db = sqliteOf(store);
  const det = { deterministic: true };
  db.function('beebot_host', det, (url: unknown) => (typeof url === 'string' ? urlHost(url) : null));
  db.function('beebot_domain', det, (url: unknown) => {
    const h = typeof url === 'string' ? urlHost(url) : null;
    return h === null ? null : hostDomain(h);
  });
  db.function('beebot_host_in', det, (url: unknown, want: unknown) =>
    typeof url === 'string' && hostMatches(urlHost(url), String(want)) ? 1 : 0,
  );
  db.function('beebot_icontains', det, (text: unknown, needle: unknown) =>
    typeof text === 'string' && text.toLowerCase().includes(String(needle).toLowerCase()) ? 1 : 0,
  );
}
