// Sitemap files as sites serve them (sitemaps.org), for the parser's tests and the sites the CLI
// tests crawl.

/** A `<urlset>` of these page URLs, each with a lastmod the parser ignores. */
export const urlset = (...locs: string[]): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc><lastmod>2024-01-01</lastmod></url>`).join('\n')}</urlset>`;

/** A `<sitemapindex>` of these sitemap URLs. */
export const sitemapIndex = (...locs: string[]): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('')}</sitemapindex>`;
