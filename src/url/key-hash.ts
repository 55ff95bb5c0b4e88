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
  hash(key);
  return { dir: lanes.dir, fp: BigInt.asIntN(64, (BigInt(lanes.hi >>> 0) << 32n) | BigInt(lanes.lo >>> 0)) };
}

/** The same fingerprint as two signed 32-bit lanes (fp = hi << 32 | lo), allocation-free. */
export interface Lanes {
  lo: number;
  hi: number;
}

/** fingerprint(key).fp as lanes: the caller reads them before the next call. */
export function fingerprintLanes(key: string): Readonly<Lanes> {
  hash(key);
  return lanes;
}

const lanes = { lo: 0, hi: 0, dir: 0 };

function hash(key: string): void {
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
  lanes.lo = h1 | 0;
  lanes.hi = h2 | 0;
  lanes.dir = (dir ^ (dir >>> 13)) >>> 0;
}
