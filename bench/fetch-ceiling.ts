/**
 * The serving ceiling: a client that only fetches (undici, C requests in flight, bodies read and
 * dropped, nothing parsed or stored) against the benchmark server. A crawler near this figure is
 * limited by the test server and loopback, not by its own work; the crawlers sit far below it.
 *
 * Run by scripts/bench.ts as its own process:
 * `node dist/bench/fetch-ceiling.js '{"port":P,"sites":20,"pagesPerSite":5000,"pages":2000,"concurrency":8}'`
 */
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { pagePath, siteHost } from './web.js';

export interface Ceiling {
  pages: number;
  bytes: number;
  seconds: number;
  pagesPerSecond: number;
}

export async function measureCeiling(o: { port: number; sites: number; pagesPerSite: number; pages: number; concurrency: number }): Promise<Ceiling> {
  const lookup = (_host: string, opts: { all?: boolean }, cb: (e: null, a: unknown, f?: number) => void) =>
    opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);
  const dispatcher = new Agent({ connect: { lookup: lookup as never }, connections: 2 });
  let next = 0;
  let bytes = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (let i = next++; i < o.pages; i = next++) {
      const url = `http://${siteHost(i % o.sites)}:${o.port}${pagePath(Math.floor(i / o.sites) % o.pagesPerSite)}`;
      const res = await request(url, { dispatcher });
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  await dispatcher.close();
  return { pages: o.pages, bytes, seconds, pagesPerSecond: o.pages / seconds };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await measureCeiling(JSON.parse(process.argv[2] ?? '{}'))));
}
