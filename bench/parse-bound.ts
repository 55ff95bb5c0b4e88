/**
 * The parse-bound limit: how fast one core can get the links out of the benchmark's pages with
 * no network and no database. The pages are generated into memory first; only the parsing is
 * timed. Three levels, each a superset of the one before:
 *
 * - `tokenize`: htmlparser2's Parser over the decoded text, collecting a[href] (the issue's limit),
 * - `resolve`:  + UTF-8 decoding of the bytes and `new URL(href, page)` for every link,
 * - `analyse`:  beebot's own analysePage (decode with charset detection, extract with anchor
 *               text and rel, classify and key every link), i.e. beebot's CPU per page minus
 *               fetching and storing.
 *
 * Run by scripts/bench.ts as its own process (a fresh heap, nothing else on the core):
 * `node dist/bench/parse-bound.js '{"web":{...},"pages":1000,"rounds":5,"port":1}'` prints JSON.
 */
import { Parser } from 'htmlparser2';
import { pathToFileURL } from 'node:url';
import { analysePage } from '../src/page/analyse.js';
import { siteRule } from '../src/url/scope.js';
import { hash32, pagePath, renderPage, siteHost, type WebConfig } from './web.js';

export interface ParseBound {
  pages: number;
  meanBytes: number;
  linksPerPage: number;
  externalPerPage: number;
  /** pages/s, median over rounds */
  tokenize: number;
  resolve: number;
  analyse: number;
}

export interface Sample {
  url: string;
  host: string;
  bytes: Buffer;
}

/** `n` pages of the comparison web, spread over its sites and pages (deterministic). */
export function samplePages(web: WebConfig, n: number, port: number): Sample[] {
  return Array.from({ length: n }, (_, i) => {
    const site = i % web.sites;
    const id = hash32(web.seed, i, 99) % web.pagesPerSite;
    const host = siteHost(site);
    return { url: `http://${host}:${port}${pagePath(id)}`, host, bytes: renderPage(web, `${host}:${port}`, pagePath(id), port).body };
  });
}

function tokenize(html: string, out: string[]): void {
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'a' && attrs.href !== undefined) out.push(attrs.href);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
}

export function measureParseBound(samples: Sample[], rounds: number): ParseBound {
  const texts = samples.map((s) => s.bytes.toString('utf8'));
  let links = 0;
  let external = 0;
  const runs = {
    tokenize: () => {
      for (const t of texts) tokenize(t, []);
    },
    resolve: () => {
      for (const s of samples) {
        const hrefs: string[] = [];
        tokenize(s.bytes.toString('utf8'), hrefs);
        for (const h of hrefs) {
          try {
            new URL(h, s.url);
          } catch {
            // unparseable hrefs count as parsed work all the same
          }
        }
      }
    },
    analyse: () => {
      links = 0;
      external = 0;
      for (const s of samples) {
        const scope = { rule: siteRule(new URL(`http://${s.host}/`), 'host'), nested: [], mode: 'standard' as const };
        const a = analysePage(s.bytes, s.url, 'text/html; charset=utf-8', scope, 'windows-1252');
        links += a.links.internal.length + a.links.external.length + a.links.bad.length;
        external += a.links.external.length;
      }
    },
  };
  const rates: Record<keyof typeof runs, number[]> = { tokenize: [], resolve: [], analyse: [] };
  // One untimed round each to warm the JIT, then the levels alternate round by round.
  for (const f of Object.values(runs)) f();
  for (let r = 0; r < rounds; r++) {
    for (const [name, f] of Object.entries(runs) as [keyof typeof runs, () => void][]) {
      const t0 = performance.now();
      f();
      rates[name].push(samples.length / ((performance.now() - t0) / 1000));
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    pages: samples.length,
    meanBytes: samples.reduce((n, s) => n + s.bytes.length, 0) / samples.length,
    linksPerPage: links / samples.length,
    externalPerPage: external / samples.length,
    tokenize: med(rates.tokenize),
    resolve: med(rates.resolve),
    analyse: med(rates.analyse),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const job = JSON.parse(process.argv[2] ?? '{}') as { web: WebConfig; pages: number; rounds: number; port: number };
  console.log(JSON.stringify(measureParseBound(samplePages(job.web, job.pages, job.port), job.rounds)));
}
