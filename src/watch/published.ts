import { Parser } from 'htmlparser2';

/**
 * An item's publication time, read from its page when the page states one (the
 * appearance time of a new item on a hub). Sources, most trusted first:
 *   1. <meta property="article:published_time" content="…"> (Open Graph; also name= / itemprop=datePublished)
 *   2. JSON-LD `datePublished` in <script type="application/ld+json">, top-level, in arrays or @graph
 *   3. the first <time datetime="…"> (a list page or comments may carry others, so it ranks below)
 *   4. a dated URL: /2026/11/23/…, /2026-11-23-…, /20261123/
 * Pure: the caller passes the current time, which bounds what is plausible.
 */

/** Nothing on the web we crawl was published before this (the first news sites: 1995). */
export const EARLIEST = Date.UTC(1995, 0, 1);
/** Tolerated clock skew and time-zone slips: a page may be dated up to a day ahead of us. */
export const FUTURE_SLACK = 24 * 3_600_000;

export function plausibleDate(t: number, now: number): boolean {
  return Number.isFinite(t) && t >= EARLIEST && t <= now + FUTURE_SLACK;
}

// ISO 8601 / RFC 3339 as pages write it: a date, optionally a time, optionally an offset.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Epoch ms of an ISO date or date-time; null when it is not one or names no real day
 * (2026-02-30). A time without an offset is read as UTC (not the machine's zone: results must
 * not depend on where the crawler runs); a date alone is its UTC midnight.
 */
export function parseIsoDate(s: string): number | null {
  const m = ISO.exec(s.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '0', zone = 'Z'] = m;
  const day = utcDay(Number(y), Number(mo), Number(d));
  if (day === null || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return null;
  let t = day + ((Number(h) * 60 + Number(mi)) * 60 + Number(sec)) * 1000 + Math.floor(Number(`0.${frac}`) * 1000);
  const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (z) {
    if (Number(z[2]) > 14 || Number(z[3]) > 59) return null;
    const off = (Number(z[2]) * 60 + Number(z[3])) * 60_000;
    t -= z[1] === '+' ? off : -off;
  }
  return t;
}

/** UTC midnight of a calendar day, null when the day does not exist. */
function utcDay(y: number, m: number, d: number): number | null {
  if (m < 1 || m > 12 || d < 1) return null;
  const t = Date.UTC(y, m - 1, d);
  return new Date(t).getUTCDate() === d ? t : null;
}

// A dated URL path: /2026/11/23/ (or at the end), /2026-11-23- (a slug follows), /20261123/.
const URL_DATES: RegExp[] = [
  /\/((?:19|20)\d{2})\/(\d{1,2})\/(\d{1,2})(?=[/._-]|$)/,
  /\/((?:19|20)\d{2})-(\d{2})-(\d{2})(?=[/._-]|$)/,
  /\/((?:19|20)\d{2})(\d{2})(\d{2})(?=[/._-]|$)/,
];

/** UTC midnight of the date in a URL's path, or null. The query and fragment are not read. */
export function dateFromUrl(url: string): number | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  for (const re of URL_DATES) {
    const m = re.exec(path);
    if (!m) continue;
    const t = utcDay(Number(m[1]), Number(m[2]), Number(m[3]));
    if (t !== null) return t;
  }
  return null;
}

/** The first `datePublished` string in a JSON-LD value, depth first in document order (arrays, @graph, nested objects). */
export function jsonLdPublished(value: unknown, depth = 0): string | null {
  if (depth > 8 || value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = jsonLdPublished(v, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  const o = value as Record<string, unknown>;
  const own = o.datePublished;
  if (typeof own === 'string') return own;
  // {"datePublished": {"@value": "…"}} (expanded form)
  if (own && typeof own === 'object' && typeof (own as Record<string, unknown>)['@value'] === 'string') return (own as Record<string, string>)['@value']!;
  for (const k in o) {
    const found = jsonLdPublished(o[k], depth + 1);
    if (found !== null) return found;
  }
  return null;
}

const META_NAMES = new Set(['article:published_time', 'datepublished']);
/** JSON-LD scripts bigger than this are skipped: a date sits in the first few KB, a huge blob is data. */
const MAX_JSON_LD = 512 * 1024;

/**
 * Collects the candidates from htmlparser2 events, so a caller that already parses the page
 * (extract.ts) can feed the same pass: call onopentag/ontext/onclosetag as the parser does,
 * then result(url, now). It expects attribute values and text decoded (when extract.ts
 * reads a page's UTF-8 bytes, decode them first), and the text inside <script> too, which extract.ts
 * itself skips as hidden: the JSON-LD is there.
 */
export class PublishedCollector {
  private meta: string | null = null;
  private jsonLd: string | null = null;
  private time: string | null = null;
  private script: string | null = null; // text of the JSON-LD script being read

  onopentag(name: string, attrs: Record<string, string>): void {
    if (name === 'meta' && this.meta === null) {
      const key = (attrs.property ?? attrs.name ?? attrs.itemprop ?? '').trim().toLowerCase();
      if (META_NAMES.has(key) && attrs.content) this.meta = attrs.content;
    } else if (name === 'time' && this.time === null && attrs.datetime) {
      this.time = attrs.datetime;
    } else if (name === 'script' && this.jsonLd === null && (attrs.type ?? '').trim().toLowerCase() === 'application/ld+json') {
      this.script = '';
    }
  }

  ontext(text: string): void {
    if (this.script !== null && this.script.length <= MAX_JSON_LD) this.script += text;
  }

  onclosetag(name: string): void {
    if (name !== 'script' || this.script === null) return;
    const text = this.script;
    this.script = null;
    if (text.length > MAX_JSON_LD) return;
    try {
      this.jsonLd = jsonLdPublished(JSON.parse(text));
    } catch {
      // broken JSON-LD is common; the other sources still count
    }
  }

  /** The first plausible time among the sources in rank order, epoch ms, or null. */
  result(url: string, now: number): number | null {
    for (const s of [this.meta, this.jsonLd, this.time]) {
      const t = s === null ? null : parseIsoDate(s);
      if (t !== null && plausibleDate(t, now)) return t;
    }
    const t = dateFromUrl(url);
    return t !== null && plausibleDate(t, now) ? t : null;
  }
}

/** An item's publication time from its HTML and URL (epoch ms), or null when none is stated or plausible. */
export function publishedTime(html: string, url: string, now: number): number | null {
  const c = new PublishedCollector();
  const parser = new Parser(
    {
      onopentag: (name, attrs) => c.onopentag(name, attrs),
      ontext: (text) => c.ontext(text),
      onclosetag: (name) => c.onclosetag(name),
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return c.result(url, now);
}
