/**
 * The seen-set's key for a link (see pages_seen in schema.ts): `fp`, a 64-bit fingerprint of the
 * whole key, and `dir`, a 32-bit hash of its directory (the key up to the last '/' before any
 * '?'). The index holds these instead of the URL text, so at a million stored links it is a few
 * times smaller and asking "is this link stored?" rarely leaves SQLite's cache. `dir` comes
 * first in the index: the links a page adds mostly share a few directories, so their entries
 * land next to each other and a commit rewrites a few index pages, not one per link.
 *
 * fp is two 32-bit lanes of cyrb53 (public domain, bryc), kept whole. Two keys of one site with
 * the same dir and fp would make the second look stored: with 64 bits the chance is about
 * n²/2^65 for n keys in one directory, 3·10⁻⁸ for a million — the bet Heritrix's
 * fingerprint-based seen-set makes too.
 */
export interface Fingerprint {
  dir: number;
  fp: bigint;
}

export function fingerprint(key: string): Fingerprint {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  let dir = h1;
  let inQuery = false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
    if (c === 47 /* / */ && !inQuery) dir = h1;
    else if (c === 63 /* ? */) inQuery = true;
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  dir = Math.imul(dir ^ (dir >>> 15), 2246822507);
  return { dir: (dir ^ (dir >>> 13)) >>> 0, fp: BigInt.asIntN(64, (BigInt(h2 >>> 0) << 32n) | BigInt(h1 >>> 0)) };
}
