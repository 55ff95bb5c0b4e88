import type { FoundLinks } from '../store/commit.js';
import { classifyLink, type SiteScope } from './classify.js';
import { decodeBytes, detectEncoding, type EncodingSource } from './decode.js';
import { extractLinks } from './extract.js';
import { resolveHref } from './url.js';
import { joinCues, linkCues } from '../order/cues.js';
import { termCounts } from '../focus/terms.js';

/** What the crawl keeps of an analysed page: its encoding and its sorted links. */
export interface PageLinks {
  encoding: string;
  encodingSource: EncodingSource;
  links: FoundLinks;
  /** the page's <title> (see extract.ts) */
  title?: string | null;
  /** term counts of the title (twice) and the text (topic-focused crawls) */
  terms?: Record<string, number>;
}

/**
 * From an HTML page's bytes to its sorted links: detect the encoding, extract, resolve against
 * the first <base href>, classify. Pure: the same bytes give the same links. A UTF-8 page is
 * tokenized as bytes and only what is kept is decoded (see extract.ts).
 */
export function analysePage(
  bytes: Uint8Array, pageUrl: string, contentType: string | null, site: SiteScope, defaultEncoding: string, context = false, text = false,
): PageLinks {
  const { encoding, source, start } = detectEncoding(bytes, contentType ?? undefined, defaultEncoding);
  const body = bytes.subarray(start);
  const found =
    encoding === 'utf-8'
      ? extractLinks(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1'), { utf8Bytes: true, context, text })
      : extractLinks(decodeBytes(body, encoding), { context, text });
  const baseUrl = found.base !== null ? resolveHref(found.base, pageUrl) : null;
  const base = baseUrl && /^https?:$/.test(baseUrl.protocol) ? baseUrl.href : pageUrl;

  const links: FoundLinks = { internal: [], external: [], bad: [] };
  const raw: { href: string; tag: string; text: string; rel: string; path?: string; around?: string }[] =
    found.refresh !== null ? [...found.links, { href: found.refresh, tag: 'refresh', text: '', rel: '' }] : found.links;
  for (const l of raw) {
    const c = classifyLink(l.href, base, site);
    if (c.kind === 'internal') {
      // An ordered crawl learns from the link's cues; they are made here, off the crawl's thread.
      const cues = context ? joinCues(linkCues(c.url, l.text, { path: l.path, around: l.around, title: found.title ?? undefined })) : undefined;
      links.internal.push(cues === undefined ? { url: c.url, key: c.key, anchor: l.text } : { url: c.url, key: c.key, anchor: l.text, cues });
    }
    else if (c.kind === 'external') links.external.push({ url: c.url, key: c.key, host: c.host, anchor: l.text, rel: l.rel, tag: l.tag });
    else links.bad.push({ raw: c.raw, reason: c.reason });
  }
  if (text) return { encoding, encodingSource: source, links, title: found.title, terms: termCounts(`${found.title ?? ''} ${found.title ?? ''} ${found.text}`) };
  return { encoding, encodingSource: source, links, title: found.title };
}

export interface AnalyseJob {
  bytes: Uint8Array;
  url: string;
  contentType: string | null;
  scope: SiteScope;
  defaultEncoding: string;
  /** read each link's context too (ordered crawls) */
  context?: boolean;
  /** read the page's title and text too (topic-focused crawls) */
  text?: boolean;
}

export function analyseJob(job: AnalyseJob): PageLinks {
  return analysePage(job.bytes, job.url, job.contentType, job.scope, job.defaultEncoding, job.context, job.text);
}
