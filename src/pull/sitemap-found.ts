// What reading a site's sitemaps gave: the network reads them (src/net/sitemaps.ts), the store
// queues their pages (src/store/sitemap-pages.ts).
import type { Hold } from '../page/found-links.js';

/** A page a sitemap lists, as the site's scope classified it, with the sitemap that names it. */
export interface SitemapPage {
  url: string;
  key: string;
  sitemap: string;
  hold?: Hold;
}

/**
 * A site's sitemaps read: its pages, the files read, the files that could not be, and whether one
 * of them failed for now (then they are not marked read: a later crawl reads them again).
 */
export interface SitemapFound {
  pages: readonly SitemapPage[];
  files: number;
  problems: readonly string[];
  again: boolean;
}
