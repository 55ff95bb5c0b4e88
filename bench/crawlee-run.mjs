// One Crawlee crawl of the benchmark web, run as its own process by scripts/bench.ts so its CPU
// time and peak RSS are its own. Plain .mjs: crawlee lives in bench/node_modules only, outside
// beebot's TypeScript build.
//
// Usage: node bench/crawlee-run.mjs '{"seeds":[...],"budget":N,"concurrency":C}'
// Prints one JSON line: { pages, external, failed, seconds }.
//
// The job a user would write to do beebot's: CheerioCrawler, same-hostname links enqueued, a page
// cap, the external links of each page collected (each (page, URL) pair once, as beebot stores
// them). Everything else is Crawlee's defaults (session pool, browser-like headers, 3 retries),
// except: concurrency pinned (min = max = C, so both crawlers run C requests at a time rather
// than Crawlee ramping up from 1), storage in memory only, and `*.bench` names resolved to
// 127.0.0.1 in got's own DNS hook (so requests go straight to the server, kept alive, as
// beebot's --resolve does; Crawlee's proxy path opens a new connection per request).
import { lookup as dnsLookup } from 'node:dns';
import { CheerioCrawler, Configuration, log } from 'crawlee';

const job = JSON.parse(process.argv[2] ?? '{}');
const { seeds, budget, concurrency } = job;
if (!Array.isArray(seeds) || !Number.isInteger(budget) || !Number.isInteger(concurrency)) {
  console.error('usage: node bench/crawlee-run.mjs \'{"seeds":["http://site0.bench:PORT/"],"budget":1000,"concurrency":8}\'');
  process.exit(2);
}

function loopback(hostname, options, callback) {
  if (typeof options === 'function') [callback, options] = [options, {}];
  if (!hostname.endsWith('.bench')) return dnsLookup(hostname, options, callback);
  if (options?.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  return callback(null, '127.0.0.1', 4);
}

log.setLevel(log.LEVELS.WARNING);
let pages = 0;
let external = 0;
const crawler = new CheerioCrawler(
  {
    maxRequestsPerCrawl: budget,
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    preNavigationHooks: [
      (_ctx, gotOptions) => {
        gotOptions.dnsLookup = loopback;
      },
    ],
    async requestHandler({ request, $, enqueueLinks }) {
      pages++;
      const base = request.loadedUrl ?? request.url;
      const host = new URL(base).hostname;
      const seen = new Set();
      for (const el of $('a[href]')) {
        let u;
        try {
          u = new URL($(el).attr('href'), base);
        } catch {
          continue;
        }
        if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === host) continue;
        u.hash = '';
        seen.add(u.href);
      }
      external += seen.size;
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  },
  new Configuration({ persistStorage: false, purgeOnStart: true }),
);

const t0 = performance.now();
const stats = await crawler.run(seeds);
const seconds = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ pages, external, failed: stats.requestsFailed, finished: stats.requestsFinished, seconds }));
