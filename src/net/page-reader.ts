import type { Dispatcher } from 'undici';
import { dbWaitMs } from '../db/db-wait.js';
import { createAnalyser, type Analyser } from '../page/analyser.js';
import { hopFate, type LinkSettings, type RobotsWord, type SiteScope } from '../page/link-fate.js';
import type { SiteParamRules } from '../params/rules.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import type { PullResult } from '../pull/pull-record.js';
import type { SitemapFound } from '../pull/sitemap-found.js';
import { PageDeadline } from './page-deadline.js';
import { fetchPage, type FetchContext, type PageFetch, type Validators } from './fetch-page.js';
import type { HostGate } from './host-gate.js';
import { createDispatcher, FetchError, httpGet, httpOptions, type HttpOptions, type HttpResponse, type RequestSettings } from './http.js';
import { MAX_SITEMAP_BYTES } from '../markup/sitemap.js';
import { readSitemaps, SITEMAP_SITE_DEADLINES, sitemapPages } from './sitemaps.js';
import { failed, htmlBody, toPullResult } from './pull-result.js';
import { RobotsCache, type OriginRobots } from './robots-cache.js';
import { HostBusy } from './shared-host-gate.js';
import { ExternalMemory } from './external-memory.js';
import { LargeBodies } from './large-bodies.js';
import { VALUE_DEFAULTS, valueKinds } from '../schedule/links/link-value.js';

/** The cues the analysis makes for --order value: only the kinds it reads. */
const VALUE_KINDS = valueKinds(VALUE_DEFAULTS);

/** The crawl settings one page's trip reads, under the names the crawl's settings give them. */
export interface ReaderSettings extends RequestSettings, LinkSettings {
  robots: 'yes' | 'no';
  'max-crawl-delay': number;
  'page-timeout': number;
  'max-redirects': number;
  retries: number;
  'default-encoding': string;
  'index-text': 'yes' | 'no';
  order: string;
}

export interface ReaderOptions {
  settings: ReaderSettings;
  /** each site's bounds (store/sites.ts: siteScopes), by site id */
  scopes: ReadonlyMap<number, SiteScope>;
  /** each site's parameter rules, by site id; a site without rules is absent: its links go untouched */
  params: ReadonlyMap<number, SiteParamRules>;
  resolve: ReadonlyMap<string, string>;
  proxy: string | null;
  /** the politeness every request goes through, robots.txt's too */
  gate: HostGate;
  /** analyser worker threads */
  analysers: number;
  /** score each page's words against the crawl's topic */
  focus: boolean;
  /** robots.txt's rules were read for an origin */
  onRobots?: (r: OriginRobots) => void;
}

export interface ReadOptions {
  /** a re-check: the validators of the page's last answer */
  validators?: Validators;
  /** analyse the HTML body only of answers with this status (default: any) */
  analyseIf?: (httpStatus: number | null) => boolean;
  /** sees an HTML body to be analysed, and its final URL, first */
  onBody?: (body: Uint8Array, url: string) => void;
  /** a request is being sent (FetchContext.onSend) */
  onSend?: () => void;
}

export interface PageRead {
  /** what the network gave (a timed-out fetch: no response, error 'page-timeout') */
  fetch: PageFetch;
  /** what the store keeps of it */
  result: PullResult;
  /** the page's time ran out */
  timedOut: boolean;
  /** from the first request to the pull result */
  ms: number;
}

/**
 * One page's trip, for the crawl and for the re-checks of refresh and watch alike: robots.txt's
 * word, then the fetch within the page's deadline (redirects, retries, host politeness), the
 * analysis of an HTML answer in the analyser workers, and the pull result the store keeps.
 */
export class PageReader {
  readonly http: HttpOptions;
  private dispatcher: Dispatcher;
  private robotsTxt: RobotsCache | null;
  /** bodies past a MiB one at a time, and their garbage collected soon (see both files) */
  private bodies = new LargeBodies();
  private memory = new ExternalMemory();

  private constructor(private o: ReaderOptions, private analyser: Analyser) {
    const s = o.settings;
    this.http = httpOptions(s, o.resolve, o.proxy);
    this.dispatcher = createDispatcher(this.http);
    this.robotsTxt = s.robots === 'yes' ? new RobotsCache(this.dispatcher, this.http, o.gate, s['max-crawl-delay'], s['page-timeout'], o.onRobots ?? (() => undefined)) : null;
  }

  static async open(o: ReaderOptions): Promise<PageReader> {
    return new PageReader(o, await createAnalyser(o.analysers));
  }

  /** robots.txt's word on a URL (allow when the crawl ignores robots.txt); 'aborted': the run was stopped meanwhile. */
  async robots(url: string, signal: AbortSignal): Promise<RobotsWord | 'aborted'> {
    if (!this.robotsTxt) return { kind: 'allow' };
    try {
      return await this.robotsTxt.verdict(url, signal);
    } catch (err) {
      if (signal.aborted) return 'aborted';
      throw err;
    }
  }

  /**
   * Fetch a page within its time, analyse an HTML answer, and turn it into a pull result.
   * 'abandoned': nothing to store — the run was stopped, or the page's host never came free
   * (another worker held it); the page stays as it was.
   */
  async read(page: FrontierPage, signal: AbortSignal, r: ReadOptions = {}): Promise<PageRead | 'abandoned'> {
    const s = this.o.settings;
    const scope = this.o.scopes.get(page.siteId)!;
    const t0 = performance.now();
    const deadline = new PageDeadline(s['page-timeout'], dbWaitMs);
    const both = AbortSignal.any([signal, deadline.signal]);
    const robots = this.robotsTxt;
    const denied = robots ? async (u: string) => hopFate(await robots.verdict(u, both)) : undefined;
    const turn = this.bodies.claim();
    const ctx: FetchContext = {
      dispatcher: this.dispatcher, http: this.http, gate: this.o.gate, site: scope, maxRedirects: s['max-redirects'], retries: s.retries, signal: both, denied,
      validators: r.validators, onSend: r.onSend, turn,
    };
    let f: PageFetch;
    let result: PullResult;
    let timedOut = false;
    try {
      f = await fetchPage(page.url, ctx);
      const body = !r.analyseIf || r.analyseIf(f.response?.status ?? null) ? htmlBody(f) : null;
      if (body) r.onBody?.(body, f.finalUrl);
      const analysed = body
        ? await this.analyser.analyse({
            bytes: body, url: f.finalUrl, contentType: f.response!.contentType, scope, defaultEncoding: s['default-encoding'],
            indexText: s['index-text'] === 'yes', focus: this.o.focus, cues: s.order === 'value' ? VALUE_KINDS : undefined,
            settings: s, params: this.o.params.get(page.siteId),
          })
        : null;
      result = toPullResult(page, f, scope, analysed, this.o.params.get(page.siteId));
    } catch (err) {
      if (signal.aborted) return 'abandoned'; // a stopped run: the page stays queued and is fetched again on resume
      if (err instanceof HostBusy) return 'abandoned'; // not fetched: the page stays queued for the next pick
      if (!both.aborted) throw err;
      timedOut = true;
      f = { hops: [], response: null, finalUrl: page.url, offsite: null, error: 'page-timeout', retries: 0 };
      result = failed(page, 'page-timeout');
    } finally {
      deadline.clear();
      turn.done();
      this.memory.check();
    }
    return { fetch: f, result, timedOut, ms: performance.now() - t0 };
  }

  /**
   * A site's sitemaps (sitemaps.ts): those its robots.txt names (when the crawl reads robots.txt)
   * and /sitemap.xml, each file within the page deadline and the host's politeness, all of them
   * within SITEMAP_SITE_DEADLINES page deadlines.
   */
  async sitemaps(siteId: number, startUrl: string, signal: AbortSignal): Promise<SitemapFound> {
    const named = this.robotsTxt ? await this.robotsTxt.sitemaps(new URL(startUrl).origin, signal) : [];
    const within = SITEMAP_SITE_DEADLINES * this.o.settings['page-timeout'];
    const read = await readSitemaps(startUrl, named, (url) => this.file(url, signal), within);
    return { pages: sitemapPages(read, this.o.scopes.get(siteId)!, this.o.settings, this.o.params.get(siteId)), files: read.files, problems: read.problems, again: read.again };
  }

  private async file(url: string, signal: AbortSignal): Promise<HttpResponse> {
    // A timer holding its controller, as in read().
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException('sitemap timeout', 'TimeoutError')), this.o.settings['page-timeout']);
    const both = AbortSignal.any([signal, deadline.signal]);
    const turn = this.bodies.claim();
    try {
      return await this.o.gate.run(new URL(url).host, both, () => httpGet(this.dispatcher, url, this.http, both, 'file', MAX_SITEMAP_BYTES, {}, turn));
    } catch (err) {
      // out of time while waiting for the host: the file's timeout, not the run's stop
      if (!signal.aborted && deadline.signal.aborted && !(err instanceof FetchError)) throw new FetchError('page-timeout');
      throw err;
    } finally {
      clearTimeout(timer);
      turn.done();
      this.memory.check();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.dispatcher.close().catch(() => undefined), this.analyser.close()]);
  }
}
