import { DEFAULTS, policyNames, type PolicyName } from '../schedule/sites/registry.js';
import { UsageError } from '../errors.js';
import { defaultSkipExtensions, type SkipExtensions } from '../url/file-links.js';
import type { SessionIds } from '../url/session-ids.js';
import { rewardModes, type RewardMode } from '../schedule/sites/reward.js';
import type { Db } from '../db/db.js';
import { RECONNECT_MS } from '../db/lost-connection.js';

/** The crawler settings table: every key, its default and how a value is checked. */
export interface Settings {
  'max-level': number;
  scope: 'host' | 'domain';
  normalize: 'standard' | 'paper';
  'session-ids': SessionIds; // strip session ids from link keys (src/url/session-ids.ts); 'keep' for databases crawled before
  'user-agent': string;
  proxy: string | null; // every request of a crawl through this HTTP proxy; null = none
  resolve: readonly string[]; // curl-style host:port:addr mappings a crawl connects by; empty = the system's resolver
  delay: number; // ms between two requests to one host
  concurrency: number;
  'connect-timeout': number; // ms
  'headers-timeout': number; // ms
  'body-timeout': number; // ms between two body chunks
  'page-timeout': number; // ms for a whole page, redirects included
  'max-bytes': number; // body cap, also after decompression
  'max-redirects': number;
  'check-certificate': 'yes' | 'no'; // 'no': accept any TLS certificate (an untrusted, expired or mismatched one), as curl -k does
  robots: 'yes' | 'no'; // obey robots.txt (turn off only for your own sites)
  sitemaps: 'yes' | 'no'; // queue each site's sitemap URLs (robots.txt Sitemap: lines, /sitemap.xml) after its start page
  'max-crawl-delay': number; // s: a longer Crawl-delay is clamped to this (and noted in status)
  retries: number; // repeats of a request that failed transiently (never DNS, never 4xx but 408/429)
  'max-backoff': number; // ms: the longest pause of a failing host or a Retry-After we honour
  'give-up-after': number; // pages in a row failed on a site's host (each page once) after which the site is paused for the run
  'db-reconnect': number; // ms a lost PostgreSQL connection is tried again before the crawl exits 1
  'retry-attempts': number; // failed attempts (network, timeout, 5xx, 429) after which a page may become a permanent error...
  'retry-span': number; // ms: ...once its first failure is at least this old
  'max-url-length': number;
  'max-path-depth': number;
  'max-query-variants': number; // distinct query strings per path per site (calendar traps)
  'max-links-per-page': number;
  'max-pages-per-site': number | null;
  'skip-extensions': SkipExtensions; // internal links to these files are stored, never fetched; empty = fetch all
  'dead-end-after': number | null; // failed pulls (4xx, not HTML) with no page in a link class before its links are skipped
  'default-encoding': string; // when a page declares nothing and the bytes can't tell
  'index-text': 'yes' | 'no'; // keep fetched pages' text in the full-text index (beebot search)
  budget: number | null; // total pages for this database; null = until every site is exhausted
  policy: PolicyName;
  order: 'bfs' | 'best-first' | 'plain' | 'shark-search' | 'otie' | 'value'; // inside a site (src/schedule/links/priority.ts)
  focus: string | null; // topic-focused crawl: the topic's words or example text (src/schedule/focus); null = none
  'focus-threshold': number; // a page is relevant to the topic from this cosine similarity on
  reward: RewardMode; // what a pull's reward counts: new external URLs, new outside hosts or (page, URL) pairs
  quantum: number; // round-robin, auto: pages per site per turn (q)
  step: number; // gittins, auto: batch size (n)
  warmup: number; // ucb1 and its kin: pages per site before the index (m)
  explore: number | null; // trivial: phase-1 pages per site; null = round(N/K)
  window: number; // sw-ucb, rr-ucb: a site's own latest pages its mean is taken over
  'prior-mean': number; // thompson
  'prior-weight': number; // thompson
  seed: number; // for policies that draw random numbers
}

export const VERSION = '0.1.0';

/** The site scheduler of a crawl ordered otherwise than by value (bench:policies chose it). */
export const BANDIT_DEFAULT: PolicyName = 'rr-ucb';

/** The scheduler of a crawl with no saved policy: the pages scheduler needs the values of --order value. */
export const defaultPolicy = (order: Settings['order']): PolicyName => (order === 'value' ? defaults.policy : BANDIT_DEFAULT);

export const defaults: Settings = {
  'max-level': 5,
  scope: 'host',
  normalize: 'standard',
  'session-ids': 'strip',
  'user-agent': `beebot/${VERSION} (+https://example.org/beebot; contact: set with 'beebot config set user-agent')`,
  proxy: null,
  resolve: [],
  delay: 250,
  concurrency: 4,
  'connect-timeout': 10_000,
  'headers-timeout': 15_000,
  'body-timeout': 30_000,
  'page-timeout': 60_000,
  'max-bytes': 10 * 1024 * 1024,
  'max-redirects': 10,
  'check-certificate': 'yes',
  robots: 'yes',
  sitemaps: 'no',
  'max-crawl-delay': 30,
  retries: 2,
  'max-backoff': 60_000,
  'give-up-after': 10,
  'db-reconnect': RECONNECT_MS,
  'retry-attempts': 3,
  'retry-span': 600_000,
  'max-url-length': 2048,
  'max-path-depth': 24,
  'max-query-variants': 100,
  'max-links-per-page': 10_000,
  'max-pages-per-site': null,
  'skip-extensions': new Set(defaultSkipExtensions),
  'dead-end-after': 3,
  'default-encoding': 'windows-1252',
  'index-text': 'no',
  budget: null,
  policy: 'pages',
  order: 'value',
  focus: null,
  'focus-threshold': 0.2,
  reward: 'urls',
  quantum: DEFAULTS.quantum,
  step: DEFAULTS.step,
  warmup: DEFAULTS.warmup,
  explore: null,
  window: DEFAULTS.window,
  'prior-mean': DEFAULTS.priorMean,
  'prior-weight': DEFAULTS.priorWeight,
  seed: 1,
};

export type SettingKey = keyof Settings;

const int = (min: number) => (key: string, v: string): number => {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${key} must be an integer >= ${min}, got '${v}'`);
  }
  return n;
};
const oneOf = <T extends string>(...allowed: T[]) => (key: string, v: string): T => {
  if (!(allowed as string[]).includes(v)) throw new UsageError(`${key} must be one of ${allowed.join(', ')}, got '${v}'`);
  return v as T;
};
const positive = (key: string, v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`${key} must be a positive number, got '${v}'`);
  return n;
};
const text = (key: string, v: string): string => {
  if (v.trim() === '') throw new UsageError(`${key} must not be empty`);
  return v;
};

/** One `--resolve` mapping, like curl's: host, port (or *), then an IPv4 or a bracketed IPv6 address. */
export const RESOLVE_ENTRY = /^([^:\s]+):(\d+|\*):(\[[0-9a-fA-F:.]+\]|[0-9.]+)$/;

const parsers: { [K in SettingKey]: (key: string, v: string) => Settings[K] } = {
  'max-level': int(0),
  scope: oneOf('host', 'domain'),
  normalize: oneOf('standard', 'paper'),
  'session-ids': oneOf('strip', 'keep'),
  'user-agent': text,
  proxy: (key, v) => {
    if (v.trim() === 'none') return null;
    if (!/^https?:\/\/[^/]+/i.test(v)) throw new UsageError(`${key} must be an http(s) URL or 'none', got '${v}'`);
    return v;
  },
  resolve: (key, v) => {
    if (v.trim() === 'none') return [];
    const list = v.split(/[\s,]+/).filter((e) => e !== '');
    const bad = list.find((e) => !RESOLVE_ENTRY.test(e));
    if (list.length === 0 || bad !== undefined) throw new UsageError(`${key} wants host:port:address mappings (comma-separated) or 'none', got '${bad ?? v}'`);
    return list;
  },
  delay: int(0),
  concurrency: int(1),
  'connect-timeout': int(1),
  'headers-timeout': int(1),
  'body-timeout': int(1),
  'page-timeout': int(1),
  'max-bytes': int(1),
  'max-redirects': int(0),
  'check-certificate': oneOf('yes', 'no'),
  robots: oneOf('yes', 'no'),
  sitemaps: oneOf('yes', 'no'),
  'max-crawl-delay': int(0),
  retries: int(0),
  'max-backoff': int(0),
  'give-up-after': int(1),
  'db-reconnect': int(0),
  'retry-attempts': int(1),
  'retry-span': int(0),
  'max-url-length': int(16),
  'max-path-depth': int(1),
  'max-query-variants': int(1),
  'max-links-per-page': int(1),
  'max-pages-per-site': (key, v) => (v === 'none' ? null : int(1)(key, v)),
  'dead-end-after': (key, v) => (v === 'none' ? null : int(1)(key, v)),
  'skip-extensions': (key, v) => {
    if (v.trim() === 'none') return new Set();
    const list = v.split(/[\s,]+/).map((e) => e.replace(/^\./, '').toLowerCase()).filter((e) => e !== '');
    const bad = list.find((e) => !/^[a-z0-9][a-z0-9.+_-]*$/.test(e));
    if (list.length === 0 || bad !== undefined) throw new UsageError(`${key} must be extensions like 'pdf,zip,tar.gz' or 'none', got '${v}'`);
    return new Set(list);
  },
  'default-encoding': text,
  'index-text': oneOf('yes', 'no'),
  budget: (key, v) => (v === 'none' ? null : int(1)(key, v)),
  policy: oneOf(...policyNames),
  order: oneOf('bfs', 'best-first', 'plain', 'shark-search', 'otie', 'value'),
  focus: (key, v) => (v.trim() === 'none' ? null : text(key, v)),
  'focus-threshold': (key, v) => {
    const n = positive(key, v);
    if (n > 1) throw new UsageError(`${key} must be at most 1, got '${v}'`);
    return n;
  },
  reward: oneOf(...rewardModes),
  quantum: int(1),
  step: int(1),
  warmup: int(1),
  explore: (key, v) => (v === 'none' ? null : int(0)(key, v)),
  window: int(1),
  'prior-mean': positive,
  'prior-weight': positive,
  seed: int(0),
};

export const settingKeys = Object.keys(defaults) as SettingKey[];

export function isSettingKey(key: string): key is SettingKey {
  return Object.prototype.hasOwnProperty.call(defaults, key);
}

/** Parse a user-given value for a key; throws UsageError with the rule when it doesn't fit. */
export function parseSetting<K extends SettingKey>(key: K, value: string): Settings[K] {
  return parsers[key](key, value);
}

export function formatSetting(value: unknown): string {
  if (value instanceof Set) return value.size === 0 ? 'none' : [...value].join(',');
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  return value === null ? 'none' : String(value);
}

export function readSettings(db: Db): Settings {
  const rows = db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
  const out: Record<string, unknown> = { ...defaults };
  for (const { key, value } of rows) if (isSettingKey(key)) out[key] = parseSetting(key, value);
  if (!rows.some((r) => r.key === 'policy')) out.policy = defaultPolicy(out.order as Settings['order']);
  return out as unknown as Settings;
}

export function writeSetting(db: Db, key: SettingKey, value: unknown): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
    key,
    formatSetting(value),
  );
}
