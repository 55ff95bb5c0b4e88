import type { Db } from '../db/db.js';
import { fingerprintLanes } from '../url/key-hash.js';
import { FpSet } from './fp-set.js';
import type { Newness as IntakeNewness } from '../schedule/external-intake.js';

/** What one external link is new to (schedule/external-intake.ts), with the fingerprints asked about (url/key-hash.ts lanes). */
export interface Newness extends IntakeNewness {
  lo: number;
  hi: number;
  hostLo: number;
  hostHi: number;
}

// A site's entries are its fingerprints mixed with the site id (a bijection per site).
const SITE_LO = 0x85ebca6b;
const SITE_HI = 0xc2b2ae35;

/**
 * The external URLs (by their key's fingerprint) and outside hosts the store holds, per site and
 * in all: what the urls and hosts rewards and the live totals ask of every external link. Held in
 * memory by the crawl, its only writer, and loaded from external_links when it starts: asking
 * SQLite instead (two more indexes on the links table, four probes per new link) cost a quarter
 * of the crawl's speed. Links deleted while a crawl runs stay known to it until it restarts (they
 * are tombstoned, so the crawl does not store them again anyway).
 */
export class KnownExternal {
  private siteUrls = new FpSet();
  private urls = new FpSet();
  private siteHosts = new FpSet();
  private hosts = new FpSet();

  constructor(db: Db) {
    for (const [site, key, host] of db.prepare('SELECT site_id, key, host FROM external_links').raw().iterate() as Iterable<[number, string, string]>) {
      this.mark(site, this.ask(site, key, host));
    }
  }

  get distinctUrls(): number {
    return this.urls.size;
  }

  get distinctHosts(): number {
    return this.hosts.size;
  }

  /**
   * What the link is new to, without recording it (the caller marks it once the link is stored).
   * The answer is one reused object: read it before the next call (this runs for every link).
   */
  ask(siteId: number, key: string, host: string): Readonly<Newness> {
    const n = this.answer;
    const k = fingerprintLanes(key);
    n.lo = k.lo;
    n.hi = k.hi;
    n.urlToSite = !this.siteUrls.has(k.lo ^ Math.imul(siteId, SITE_LO), k.hi ^ Math.imul(siteId, SITE_HI));
    n.urlToStore = n.urlToSite && !this.urls.has(k.lo, k.hi);
    n.hostToSite = n.hostToStore = false;
    // A URL known to the site has its host known to the site: no need to hash the host.
    if (!n.urlToSite) return n;
    const h = fingerprintLanes(host);
    n.hostLo = h.lo;
    n.hostHi = h.hi;
    n.hostToSite = !this.siteHosts.has(h.lo ^ Math.imul(siteId, SITE_LO), h.hi ^ Math.imul(siteId, SITE_HI));
    n.hostToStore = n.hostToSite && !this.hosts.has(h.lo, h.hi);
    return n;
  }

  /** Record the link `ask` was last asked about (with its answer). */
  mark(siteId: number, n: Readonly<Newness>): void {
    if (n.urlToSite) this.siteUrls.add(n.lo ^ Math.imul(siteId, SITE_LO), n.hi ^ Math.imul(siteId, SITE_HI));
    if (n.urlToStore) this.urls.add(n.lo, n.hi);
    if (n.hostToSite) this.siteHosts.add(n.hostLo ^ Math.imul(siteId, SITE_LO), n.hostHi ^ Math.imul(siteId, SITE_HI));
    if (n.hostToStore) this.hosts.add(n.hostLo, n.hostHi);
  }

  private answer: Newness = { urlToSite: false, urlToStore: false, hostToSite: false, hostToStore: false, lo: 0, hi: 0, hostLo: 0, hostHi: 0 };
}
