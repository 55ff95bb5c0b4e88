import type { FoundLinks } from './found-links.js';
import { linkFate, type LinkSettings, type SiteScope } from './link-fate.js';
import { decodeBytes, detectEncoding, type EncodingSource } from './decode.js';
import { extractLinks, MarkupLimit } from './extract.js';
import { MAX_BODY_TEXT, type PageText } from './page-text.js';
import { ContentHash, type PagePrint } from './page-fingerprint.js';
import { finalLinks } from './final-links.js';
import { resolveHref } from '../url/url.js';
import { CUE_KINDS, joinCues, linkCues } from '../schedule/links/cues.js';
import { termCounts } from '../schedule/focus/terms.js';
import type { SiteParamRules } from '../params/rules.js';

/** What the crawl keeps of an analysed page: its encoding, its sorted links, its fingerprint, and its text when indexed. */
export interface PageLinks {
  encoding: string;
  encodingSource: EncodingSource;
  links: FoundLinks;
  /** the page's <title> (see extract.ts) */
  title: string | null;
  /** its text blocks, when asked for (full-text search, topic-focused crawls) */
  text: PageText | null;
  /** term counts of its title (twice), headings and body (topic-focused crawls) */
  terms?: Record<string, number>;
  /** its content's fingerprint and text size (a refresh compares them) */
  print: PagePrint;
}

/** An analysed page whose links are final (final-links.ts): what the crawl stores of it. */
export interface FinalPage extends PageLinks {
  /** what the per-page link cap cut, for the fetch log; null when nothing */
  note: string | null;
}

/**
 * From an HTML page's bytes to its sorted links: detect the encoding, extract, resolve against
 * the first <base href>, decide each link's fate (analyseJob then makes them final). Pure: the same bytes give
 * the same links. A UTF-8 page is tokenized as bytes and only what is kept is decoded (see
 * extract.ts).
 */
export function analysePage(
  bytes: Uint8Array, pageUrl: string, contentType: string | null, site: SiteScope, defaultEncoding: string,
  want: { text?: boolean; cues?: readonly string[]; terms?: boolean } = {},
): PageLinks {
  const { encoding, source, start } = detectEncoding(bytes, contentType ?? undefined, defaultEncoding);
  const body = bytes.subarray(start);
  const text = want.text || want.terms ? { maxBody: MAX_BODY_TEXT } : undefined;
  // The tag path and the text before a link are read only for the kinds of cue that need them.
  const kinds = want.cues;
  const context = kinds !== undefined && (kinds.includes('p') || kinds.includes('c'));
  const around = kinds?.includes('c') ?? false;
  const hash = new ContentHash();
  const found =
    encoding === 'utf-8'
      ? extractLinks(body, { text, context, around, hash })
      : extractLinks(decodeBytes(body, encoding), { text, context, around, hash });
  const baseUrl = found.base !== null ? resolveHref(found.base, pageUrl) : null;
  const base = baseUrl && /^https?:$/.test(baseUrl.protocol) ? baseUrl.href : pageUrl;

  const links: FoundLinks = { internal: [], external: [], bad: [] };
  const raw: { href: string; tag: string; text: string; rel: string; path?: string; around?: string }[] =
    found.refresh !== null ? [...found.links, { href: found.refresh, tag: 'refresh', text: '', rel: '' }] : found.links;
  for (const l of raw) {
    const c = linkFate(l.href, base, site);
    if (c.kind === 'internal') {
      // A focused crawl scores the link by its cues; they are made here, off the crawl's thread.
      const cues = kinds ? joinCues(linkCues(c.url, l.text, { path: l.path, around: l.around, title: found.title ?? undefined }, kinds)) : undefined;
      const link: FoundLinks['internal'][number] = cues === undefined ? { url: c.url, key: c.key, anchor: l.text } : { url: c.url, key: c.key, anchor: l.text, cues };
      if (c.hold !== undefined) link.hold = c.hold;
      links.internal.push(link);
    }
    else if (c.kind === 'external') links.external.push({ url: c.url, key: c.key, host: c.host, anchor: l.text, rel: l.rel, tag: l.tag });
    else links.bad.push({ raw: c.raw, reason: c.reason });
  }
  const t = found.text;
  const terms = want.terms && t ? termCounts(`${t.title} ${t.title} ${t.headings} ${t.body}`) : undefined;
  return {
    encoding, encodingSource: source, links, title: found.title,
    text: want.text ? t : null, // only what the store indexes travels back from the worker
    ...(terms ? { terms } : {}),
    print: hash.print(links),
  };
}

export interface AnalyseJob {
  bytes: Uint8Array;
  url: string;
  contentType: string | null;
  scope: SiteScope;
  defaultEncoding: string;
  /** collect the page's text blocks for full-text search (setting index-text) */
  indexText?: boolean;
  /** topic-focused crawls: each link's context and the page's term counts */
  focus?: boolean;
  /** the kinds of cue (schedule/links/cues.ts) to make for each link: orders that learn from them (--order value); a focused crawl makes all */
  cues?: readonly string[];
  /** what settles the links (final-links.ts): the crawl's settings and the site's parameter rules */
  settings: LinkSettings;
  params?: SiteParamRules;
}

/** A page refused by the parser's limits (extract.ts): why, stored as the page's error. */
export interface Unparsed {
  unparsed: string;
}

/**
 * A page's final links from its bytes: analysed, each link's fate decided (link-fate.ts), then
 * settled and capped (finalLinks). Pure; run on an analyser thread.
 */
export function analyseJob(job: AnalyseJob): FinalPage | Unparsed {
  try {
    const a = analysePage(job.bytes, job.url, job.contentType, job.scope, job.defaultEncoding, { text: job.indexText, cues: job.focus ? CUE_KINDS : job.cues, terms: job.focus });
    return { ...a, ...finalLinks(a.links, job.scope, job.settings, job.params) };
  } catch (err) {
    if (err instanceof MarkupLimit) return { unparsed: err.message };
    throw err;
  }
}
