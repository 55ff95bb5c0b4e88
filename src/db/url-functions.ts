import { sqliteOf, type Db } from './db-types.js';
import { hostDomain, hostMatches, urlHost } from '../url/host.js';

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
