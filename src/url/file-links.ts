/**
 * Links to files that are not pages. Fetching one spends a pull of the budget and yields no
 * link (21 % of a full crawl of real documentation sites went to .txt sources, .py, .zip, .png
 * and 404s); a link whose path ends in one of these extensions is stored with status 'file' and
 * never fetched. Scrapy's IGNORED_EXTENSIONS (scrapy/linkextractors) is the base list; the source
 * and text formats documentation sites link by the thousand are added.
 */
export const defaultSkipExtensions: readonly string[] = [
  // archives
  '7z', '7zip', 'bz2', 'rar', 'tar', 'tar.gz', 'tgz', 'gz', 'xz', 'zip', 'deb', 'rpm',
  // images
  'mng', 'pct', 'bmp', 'gif', 'jpg', 'jpeg', 'png', 'pst', 'psp', 'tif', 'tiff', 'ai', 'drw', 'dxf', 'eps', 'ps', 'svg', 'cdr', 'ico', 'webp',
  // audio
  'mp3', 'wma', 'ogg', 'wav', 'ra', 'aac', 'mid', 'au', 'aiff',
  // video
  '3gp', 'asf', 'asx', 'avi', 'mov', 'mp4', 'mpg', 'qt', 'rm', 'swf', 'wmv', 'm4a', 'm4v', 'flv', 'webm',
  // office documents
  'xls', 'xlsm', 'xlsx', 'xltm', 'xltx', 'potm', 'potx', 'ppt', 'pptm', 'pptx', 'pps', 'doc', 'docb', 'docm', 'docx', 'dotm', 'dotx',
  'odt', 'ods', 'odg', 'odp', 'pdf',
  // executables and other (Scrapy's)
  'css', 'exe', 'bin', 'rss', 'dmg', 'iso', 'apk', 'jar', 'sh', 'rb', 'js', 'hqx',
  // text, data and source files of documentation sites
  'txt', 'py', 'ipynb', 'rst', 'md', 'csv', 'json',
];

/** The extensions as a lookup, lowercase, without dots. Empty = fetch everything. */
export type SkipExtensions = ReadonlySet<string>;

/**
 * The skipped extension a serialized http(s) URL's path ends in, or null. Pure; looks at the last
 * path segment only ('/a.b/c' has none), case-insensitively, and tries the double extension
 * ('tar.gz') before the single one.
 */
export function skippedExtension(href: string, skip: SkipExtensions): string | null {
  if (skip.size === 0) return null;
  const authority = href.indexOf('//');
  const pathStart = href.indexOf('/', authority < 0 ? 0 : authority + 2);
  if (pathStart < 0) return null;
  let end = href.length;
  const q = href.indexOf('?', pathStart);
  if (q >= 0) end = q;
  const h = href.indexOf('#', pathStart);
  if (h >= 0 && h < end) end = h;
  const name = href.slice(href.lastIndexOf('/', end - 1) + 1, end).toLowerCase();
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  const prev = name.lastIndexOf('.', dot - 1);
  if (prev > 0 && skip.has(name.slice(prev + 1))) return name.slice(prev + 1);
  const ext = name.slice(dot + 1);
  return skip.has(ext) ? ext : null;
}
