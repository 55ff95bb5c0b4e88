import type { FoundLinks } from '../store/commit.js';
import { classifyLink, type SiteScope } from './classify.js';
import { decodeHtml, type Decoded, type EncodingSource } from './decode.js';
import { extractLinks } from './extract.js';
import { resolveHref } from './url.js';

export interface Analysed {
  decoded: Decoded;
  links: FoundLinks;
}

/**
 * From an HTML page's bytes to its sorted links: decode, extract, resolve against the first
 * <base href>, classify. Pure: the same bytes give the same links.
 */
export function analysePage(bytes: Uint8Array, pageUrl: string, contentType: string | null, site: SiteScope, defaultEncoding: string): Analysed {
  const decoded = decodeHtml(bytes, contentType ?? undefined, defaultEncoding);
  const found = extractLinks(decoded.text);
  const baseUrl = found.base !== null ? resolveHref(found.base, pageUrl) : null;
  const base = baseUrl && /^https?:$/.test(baseUrl.protocol) ? baseUrl.href : pageUrl;

  const links: FoundLinks = { internal: [], external: [], bad: [] };
  const raw = found.refresh !== null ? [...found.links, { href: found.refresh, tag: 'refresh', text: '', rel: '' }] : found.links;
  for (const l of raw) {
    const c = classifyLink(l.href, base, site);
    if (c.kind === 'internal') links.internal.push({ url: c.url, key: c.key });
    else if (c.kind === 'external') links.external.push({ url: c.url, key: c.key, anchor: l.text, rel: l.rel, tag: l.tag });
    else links.bad.push({ raw: c.raw, reason: c.reason });
  }
  return { decoded, links };
}

/** What the crawl keeps of an analysed page (the decoded text stays where it was decoded). */
export interface PageLinks {
  encoding: string;
  encodingSource: EncodingSource;
  links: FoundLinks;
}

export interface AnalyseJob {
  bytes: Uint8Array;
  url: string;
  contentType: string | null;
  scope: SiteScope;
  defaultEncoding: string;
}

export function analyseJob(job: AnalyseJob): PageLinks {
  const a = analysePage(job.bytes, job.url, job.contentType, job.scope, job.defaultEncoding);
  return { encoding: a.decoded.encoding, encodingSource: a.decoded.source, links: a.links };
}
