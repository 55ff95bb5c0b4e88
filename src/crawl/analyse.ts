import type { FoundLinks } from '../store/commit.js';
import { classifyLink, type SiteScope } from './classify.js';
import { decodeHtml, type Decoded } from './decode.js';
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

/** A body without Content-Type is parsed when it looks like HTML (browsers sniff too). */
export function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1').trimStart().toLowerCase();
  return /^(<!doctype html|<html|<head|<body|<!--|<title|<meta|<a\s)/.test(head);
}
