/**
 * robots.txt rules (RFC 9309), pure: from the outcome of fetching one origin's /robots.txt to a
 * decision per URL. Fetching, redirects (at most 5) and caching per origin belong to the caller.
 * Parsing is robots-parser's (groups with the same user-agent merged, `*` as fallback); matching is
 * robots-match.ts (Google-style: longest match wins, Allow wins ties, bounded work per URL); the
 * status rules and the size limit are ours.
 */
import robotsParser from 'robots-parser';
import { compileRules, decide, type RobotsRule } from './robots-match.js';
import { robotsAnswer } from './failure-rule.js';

export const PRODUCT_TOKEN = 'beebot';
/** RFC 9309 2.5: crawlers MUST parse at least 500 KiB; we parse exactly that much. */
export const MAX_ROBOTS_BYTES = 500 * 1024;
/**
 * How long an unreadable robots.txt blocks its origin before we ask again. Short, because the
 * block is our guess, not the site's wish: a crawl of a few minutes should get a second chance.
 */
export const ROBOTS_RETRY_MS = 60_000;

/** What we know about one origin's robots.txt. */
export type RobotsRules =
  | { kind: 'allow-all'; reason: string } // 4xx, more than 5 redirects, or empty file
  | { kind: 'disallow-all'; reason: string; retryAt: number } // 5xx / network error: never fail open
  | ParsedRobots;

export interface ParsedRobots {
  kind: 'parsed';
  /** Throws for a URL of another origin: each origin has its own robots.txt. */
  isAllowed(url: string): boolean;
  /** Seconds, as the file says (not clamped; see clampCrawlDelay); null when absent or invalid. */
  crawlDelay: number | null;
  sitemaps: string[];
  summary: string;
}

/** The robots.txt that governs `pageUrl`: same scheme, host and port. */
export function robotsUrl(pageUrl: string): string {
  const u = new URL(pageUrl);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`no robots.txt for a ${u.protocol} URL: ${pageUrl}`);
  return `${u.origin}/robots.txt`;
}

/**
 * From the outcome of fetching `origin`/robots.txt (after the caller followed at most 5
 * redirects) to rules. `now` (ms) dates retryAt.
 */
export function robotsFromResponse(
  origin: string,
  outcome: { status: number; body: Buffer | null } | { error: string } | { unavailable: string },
  now: number,
): RobotsRules {
  const blocked = (reason: string): RobotsRules => ({ kind: 'disallow-all', reason, retryAt: now + ROBOTS_RETRY_MS });
  // What the answer means is net/failure-rule.ts's (RFC 9309): no file, no rules; unreadable, never fail open.
  const answer = robotsAnswer(outcome);
  const said = 'error' in outcome ? `unreachable (${outcome.error})` : 'unavailable' in outcome ? `unavailable (${outcome.unavailable})` : `HTTP ${outcome.status}`;
  if (answer === 'no-file') return { kind: 'allow-all', reason: `robots.txt ${said}: no rules` };
  if (answer === 'unreadable') {
    // a 3xx reaching us had no Location
    const redirect = 'status' in outcome && outcome.status >= 300 && outcome.status < 400;
    return blocked(`robots.txt ${redirect ? `redirect not resolved (${said})` : said}: everything disallowed for now`);
  }
  const { status, body } = outcome as { status: number; body: Buffer | null };
  // A 2xx without a body (204, or an empty file) has no rules at all.
  if (body === null || body.length === 0) return { kind: 'allow-all', reason: `robots.txt is empty (HTTP ${status})` };
  return parseRobotsTxt(origin, body);
}

/**
 * Parse one robots.txt body and bind it to a user agent. The agent is a parameter only so the
 * conformance suites can ask as "FooBot"; the crawler always asks as PRODUCT_TOKEN. A full
 * User-Agent string is reduced to its product token ("FigTree Robot/5.04" asks as FigTree).
 */
export function parseRobotsTxt(origin: string, body: Buffer, userAgent: string = PRODUCT_TOKEN): ParsedRobots {
  const base = new URL(origin).origin;
  const agent = productToken(userAgent);
  const { bytes, truncated } = truncateAtLine(body, MAX_ROBOTS_BYTES);
  // RFC 9309 2.3: the file is UTF-8. TextDecoder strips a BOM (which would otherwise hide the
  // first line's "User-agent") and turns invalid bytes into U+FFFD instead of throwing.
  const text = repairLines(new TextDecoder('utf-8').decode(bytes));
  const robot = robotsParser(`${base}/robots.txt`, text);
  const delay = robot.getCrawlDelay(agent);
  const crawlDelay = typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay : null;
  const sitemaps = robot.getSitemaps();
  const summary = [
    `robots.txt ${body.length} bytes${truncated ? `, parsed first ${bytes.length}` : ''}`,
    namesAgent(text, agent) ? `has a ${agent} group` : 'uses the * group (if any)',
    `crawl-delay ${crawlDelay ?? 'none'}`,
    `${sitemaps.length} sitemap(s)`,
  ].join('; ');
  const rules = compileRules(groupRules(robot, agent));
  return {
    kind: 'parsed',
    isAllowed(url: string): boolean {
      const u = URL.parse(url);
      if (u === null || u.origin !== base) throw new Error(`${url} is not on ${base}: it needs that origin's robots.txt`);
      return decide(rules, upperEscapes(u.pathname + u.search)) ?? true;
    },
    crawlDelay,
    sitemaps,
    summary,
  };
}

/**
 * The rules robots-parser read for this agent (its group, else `*`), as its own isAllowed picks
 * them: robots-parser keeps the groups but matches too slowly, so robots-match.ts does that.
 */
function groupRules(robot: object, agent: string): RobotsRule[] {
  const groups = (robot as { _rules?: Record<string, RobotsRule[]> })._rules;
  if (typeof groups !== 'object' || groups === null) throw new Error('robots-parser no longer exposes its rules: check src/net/robots.ts against its version');
  return groups[agent === '' ? '*' : agent.toLowerCase()] ?? groups['*'] ?? [];
}

/** Percent-escapes in upper case, as the patterns are stored (RFC 3986 2.1). */
function upperEscapes(path: string): string {
  return path.replace(/%[0-9a-f]{2}/gi, (m) => m.toUpperCase());
}

/** Crawl-delay in ms, capped so that one site cannot stall its worker for hours. */
export function clampCrawlDelay(seconds: number | null, maxSeconds: number): { delayMs: number | null; clamped: boolean } {
  if (seconds === null || Number.isNaN(seconds) || seconds < 0) return { delayMs: null, clamped: false };
  if (seconds > maxSeconds) return { delayMs: Math.round(maxSeconds * 1000), clamped: true };
  return { delayMs: Math.round(seconds * 1000), clamped: false };
}

/**
 * The first `max` bytes, cut back to the last line break: a rule cut mid-line would be a
 * different rule ("Allow: /private/x" cut to "Allow: /p" allows far more), so the partial line
 * is dropped.
 */
function truncateAtLine(body: Buffer, max: number): { bytes: Buffer; truncated: boolean } {
  if (body.length <= max) return { bytes: body, truncated: false };
  const lastBreak = Math.max(body.lastIndexOf(0x0a, max - 1), body.lastIndexOf(0x0d, max - 1));
  return { bytes: body.subarray(0, lastBreak + 1), truncated: true };
}

/**
 * RFC 9309 2.2.1: a product token is letters, '_' and '-' only; what follows ("/0.1.0", " Robot")
 * is version or comment. An empty result makes robots-parser use the `*` group.
 */
function productToken(agent: string): string {
  return /^[A-Za-z_-]*/.exec(agent.trim())![0];
}

/**
 * Two repairs google/robotstxt makes and robots-parser does not, line by line (the line count is
 * kept, so line numbers stay the file's):
 * - "disallow /" without its colon means "disallow: /" (Google: "it's obvious what they mean");
 *   only when the line has no colon at all and exactly two words, as Google does.
 * - a user-agent value is reduced to its product token: "FOO BAR" names FOO, "FooBot/1.2" names
 *   FooBot; robots-parser would take "foo bar" whole and match no crawler. `*` counts only when
 *   alone (Google: "*" then space or end).
 */
function repairLines(text: string): string {
  return text.split(/\r\n|\r|\n/).map(repairLine).join('\n');
}

function repairLine(line: string): string {
  const content = line.split('#', 1)[0]!;
  const pair = content.includes(':') ? null : /^\s*(\S+)[ \t]+(\S+)\s*$/.exec(content);
  const fixed = pair ? `${pair[1]}: ${pair[2]}` : line;
  const ua = /^([ \t]*user-agent[ \t]*:[ \t]*)(.*)$/i.exec(fixed);
  if (!ua) return fixed;
  const [, head, value] = ua as unknown as [string, string, string];
  if (/^\*(\s|#|$)/.test(value)) return `${head}*`;
  const token = productToken(value);
  return head + (token === '' ? value : token);
}

/** For the summary only: does a user-agent line name this token (after repairLines). */
function namesAgent(text: string, token: string): boolean {
  if (token === '') return false;
  const want = token.toLowerCase();
  for (const m of text.matchAll(/^[ \t]*user-agent[ \t]*:[ \t]*([^\r\n]*)/gim)) {
    if (m[1]!.trim().toLowerCase() === want) return true;
  }
  return false;
}
