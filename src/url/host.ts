import { getDomain } from 'tldts';

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
