// The replay web's page graph as beebot sees it (src/replay/web-graph.ts), built with beebot's
// own fetch and page code through the replay proxy, so a replay sees what a live crawl sees:
//   node dist/scripts/harvest-graph.js [out.json.gz]     (default ROOT/beebot-graph.json.gz)
// About a minute. `npm run bench:harvest` and `beebot simulate --graph` read the file.
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certificateIn } from '../src/net/certificate.js';
import { fetchPage, type FetchContext } from '../src/net/fetch-page.js';
import { HostGate } from '../src/net/host-gate.js';
import { RobotsCache } from '../src/net/robots-cache.js';
import { createDispatcher, httpOptions } from '../src/net/http.js';
import { htmlBody, toPullResult } from '../src/net/pull-result.js';
import { analysePage } from '../src/page/analyse.js';
import { finalLinks } from '../src/page/final-links.js';
import { CUE_KINDS } from '../src/schedule/links/cues.js';
import type { SiteScope } from '../src/page/link-fate.js';
import { buildGraph } from '../src/replay/graph-build.js';
import { loadGraph, saveGraph, type WebGraph } from '../src/replay/web-graph.js';
import { defaults } from '../src/store/settings.js';
import { nestedSites, siteRule } from '../src/url/scope.js';
import { caFile, ensureSites, root, rootC, startProxy } from './replay-root.js';
import { helpFromHeader } from './script-help.js';

helpFromHeader(import.meta.url);

export const graphFile = join(root, 'beebot-graph.json.gz');

/** The cached graph of a replay web root, built first (in a child process that trusts the root's CA) when missing. */
export function ensureGraph(file = graphFile, dir = root, catalog = 'catalog.tsv'): WebGraph {
  if (!existsSync(file)) {
    // The replay web first: the child reads NODE_EXTRA_CA_CERTS when it starts, so the CA must
    // exist by then (else every https origin fails and its pages look robots-denied).
    ensureSites(dir, catalog);
    console.error(`building the page graph of ${dir} into ${file} (about a minute)`);
    const env = { ...process.env, REPLAY_ROOT: dir, NODE_EXTRA_CA_CERTS: join(dir, 'tls/ca.pem') };
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), file], { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error('building the page graph failed');
  }
  return loadGraph(file);
}

/** Set C's graph (catalog-c.tsv: 24 small sites of other generators, some almost barren). */
export const ensureGraphC = (): WebGraph => ensureGraph(join(rootC, 'beebot-graph.json.gz'), rootC, 'catalog-c.tsv');

async function build(out: string): Promise<void> {
  const s = { ...defaults, delay: 0 };
  const sites = ensureSites();
  const proxy = await startProxy();
  const http = httpOptions(s, new Map(), `http://127.0.0.1:${proxy.port}`);
  const dispatcher = createDispatcher(http);
  const robots = new RobotsCache(dispatcher, http, new HostGate({ delayMs: 0, maxBackoffMs: s['max-backoff'] }), s['max-crawl-delay'], s['page-timeout'], () => undefined);
  const signal = new AbortController().signal;
  // A robots.txt that failed for now (the proxy busy under 32 reads at once) is asked again, as a
  // crawl asks again: taken for a refusal at once, it made pages the live crawl reads unread here.
  const allowed = async (u: string): Promise<boolean> => {
    for (let tries = 1; ; tries++) {
      const v = await robots.verdict(u, signal);
      if (v.kind !== 'wait') return v.kind === 'allow';
      // a certificate the machine does not accept: the live crawl leaves the origin's pages unread too
      if (certificateIn(v.reason) !== null) return false;
      // still failing, or asked again only after a long back-off (a twin the proxy refuses): the live
      // crawl keeps its pages waiting, never pulled
      if (tries === 3 || v.until - Date.now() > 5000) return false;
      await sleep(Math.max(100, v.until - Date.now()));
    }
  };
  const rules = sites.map((x) => siteRule(new URL(x.url), s.scope));
  const scopes: SiteScope[] = rules.map((rule) => ({ rule, nested: nestedSites(rule, rules), mode: s.normalize, sessionIds: s['session-ids'] }));
  const t0 = performance.now();
  try {
    const web = await buildGraph(
      sites.map((x) => ({ host: x.host, url: x.url, group: x.group })),
      async (url, site) => {
        // As the crawl (page-reader.ts): robots.txt first, for the page and for each redirect's target.
        if (!(await allowed(url))) return 'robots';
        const scope = scopes[site]!;
        // A gate of its own per read: one host's pages are read several at a time (no politeness needed on loopback).
        const gate = new HostGate({ delayMs: 0, maxBackoffMs: s['max-backoff'] });
        const ctx: FetchContext = { dispatcher, http, gate, site: scope, maxRedirects: s['max-redirects'], retries: s.retries, signal: AbortSignal.timeout(s['page-timeout']),
          denied: async (u) => ((await allowed(u)) ? null : 'robots-denied') };
        const f = await fetchPage(url, ctx);
        const body = htmlBody(f);
        // With context: each link's cues as a topic-focused crawl reads them (tag path, text before it, title).
        const a = body ? analysePage(body, f.finalUrl, f.response!.contentType, scope, s['default-encoding'], { cues: CUE_KINDS }) : null;
        return toPullResult({ id: 0, siteId: site + 1, url, level: 0 }, f, scope, a && { ...a, ...finalLinks(a.links, scope, s) });
      },
      {
        maxLevel: s['max-level'], concurrency: 32, denied: async (u) => !(await allowed(u)),
        source: `${root}: every page within level ${s['max-level']}, read with beebot's fetch and page code through serve.mjs`,
        onSite: (host, pages) => console.error(`${host}: ${pages} pages`),
      },
    );
    saveGraph(out, web);
    const pages = web.sites.reduce((a, x) => a + x.pages.length, 0);
    console.error(`${web.sites.length} sites, ${pages} pages, ${web.urls.length} external URLs, ${((performance.now() - t0) / 1000).toFixed(0)} s; wrote ${out}`);
  } finally {
    proxy.child.kill('SIGTERM');
    await dispatcher.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? graphFile);
  // Run by hand without the replay web's CA (NODE_EXTRA_CA_CERTS unset, or the system's bundle),
  // every https origin would fail and its pages be left unread, a graph a live crawl does not see:
  // build it as ensureGraph does.
  if (process.env.NODE_EXTRA_CA_CERTS !== caFile) {
    ensureSites();
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: caFile };
    process.exitCode = spawnSync(process.execPath, [fileURLToPath(import.meta.url), out], { stdio: 'inherit', env }).status ?? 1;
  } else await build(out);
}
