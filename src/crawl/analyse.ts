import type { FoundLinks } from '../store/commit.js';
import { classifyLink, type SiteScope } from './classify.js';
import { decodeBytes, detectEncoding, type EncodingSource } from './decode.js';
import { extractLinks } from './extract.js';
import { MAX_BODY_TEXT, type PageText } from './page-text.js';
import { resolveHref } from './url.js';

/** What the crawl keeps of an analysed page: its encoding, its sorted links, and its text when indexed. */
export interface PageLinks {
  encoding: string;
  encodingSource: EncodingSource;
  links: FoundLinks;
  text: PageText | null;
}

/**
 * From an HTML page's bytes to its sorted links: detect the encoding, extract, resolve against
 * the first <base href>, classify. Pure: the same bytes give the same links. A UTF-8 page is
 * tokenized as bytes and only what is kept is decoded (see extract.ts).
 */
export function analysePage(
  bytes: Uint8Array, pageUrl: string, contentType: string | null, site: SiteScope, defaultEncoding: string, indexText = false,
): PageLinks {
  const { encoding, source, start } = detectEncoding(bytes, contentType ?? undefined, defaultEncoding);
  const body = bytes.subarray(start);
  const text = indexText ? { maxBody: MAX_BODY_TEXT } : undefined;
  const found =
    encoding === 'utf-8'
      ? extractLinks(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1'), { utf8Bytes: true, text })
      : extractLinks(decodeBytes(body, encoding), { text });
  const baseUrl = found.base !== null ? resolveHref(found.base, pageUrl) : null;
  const base = baseUrl && /^https?:$/.test(baseUrl.protocol) ? baseUrl.href : pageUrl;

  const links: FoundLinks = { internal: [], external: [], bad: [] };
  const raw = found.refresh !== null ? [...found.links, { href: found.refresh, tag: 'refresh', text: '', rel: '' }] : found.links;
  for (const l of raw) {
    const c = classifyLink(l.href, base, site);
    if (c.kind === 'internal') links.internal.push({ url: c.url, key: c.key, anchor: l.text });
    else if (c.kind === 'external') links.external.push({ url: c.url, key: c.key, host: c.host, anchor: l.text, rel: l.rel, tag: l.tag });
    else links.bad.push({ raw: c.raw, reason: c.reason });
  }
  return { encoding, encodingSource: source, links, text: found.text };
}

export interface AnalyseJob {
  bytes: Uint8Array;
  url: string;
  contentType: string | null;
  scope: SiteScope;
  defaultEncoding: string;
  /** collect the page's text blocks for full-text search (setting index-text) */
  indexText?: boolean;
}

export function analyseJob(job: AnalyseJob): PageLinks {
  return analysePage(job.bytes, job.url, job.contentType, job.scope, job.defaultEncoding, job.indexText ?? false);
}
