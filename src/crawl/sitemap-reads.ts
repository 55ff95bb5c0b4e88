import type { PageChoice } from '../schedule/page-choice.js';
import type { CrawlState } from '../schedule/crawl-state.js';
import type { PullWriter } from '../store/pull-writer.js';
import type { Settings } from '../store/settings.js';
import type { Site } from '../store/sites.js';
import type { PageReader } from '../net/page-reader.js';
import { HostBusy } from '../net/shared-host-gate.js';
import type { CrawlSummary } from './run-report.js';

/**
 * The sites' sitemaps, read once per site after its first pull (its start page, robots.txt read):
 * the pages they list are queued (net/sitemaps.ts). Not pulls: no budget spent. The site is in
 * flight meanwhile, so no page of it is pulled. Stopped midway: nothing stored, read again on resume.
 */
export class SitemapReads {
  /** the sites whose sitemaps this run read, with what they gave */
  readonly read: CrawlSummary['sitemaps'] = [];

  constructor(
    private s: Settings,
    private signal: AbortSignal,
    private state: CrawlState<Site>,
    private choice: PageChoice,
    private reader: PageReader,
    private writer: PullWriter,
  ) {}

  /** Sites pulled before their sitemaps were wanted (sitemaps turned on later, a stopped read): read them first. */
  async pending(): Promise<void> {
    for (const site of this.state.sites.values()) {
      if (this.signal.aborted || this.state.budgetSpent()) return;
      if (site.pulls > 0 && this.wanted(site)) await this.readOf(site);
    }
  }

  /** After a pull of the site: its sitemaps, if they are wanted and not read yet. */
  async after(site: Site): Promise<void> {
    if (this.wanted(site)) await this.readOf(site);
  }

  private wanted(site: Site): boolean {
    return site.unavailable === null && site.sitemapsRead === null && (site.sitemaps ?? this.s.sitemaps) === 'yes';
  }

  private async readOf(site: Site): Promise<void> {
    site.sitemapsRead = 'reading';
    let found;
    try {
      found = await this.reader.sitemaps(site.id, site.url, this.signal);
    } catch (err) {
      site.sitemapsRead = null;
      if (this.signal.aborted || err instanceof HostBusy) return;
      throw err;
    }
    const queued = this.writer.sitemapPages(site.id, found);
    this.read.push({ site: site.short ?? site.url, files: found.files, pages: found.pages.length, queued, problems: found.problems, again: found.again });
    site.sitemapsRead = new Date().toISOString();
    this.choice.scoreSite(site.id);
  }
}
