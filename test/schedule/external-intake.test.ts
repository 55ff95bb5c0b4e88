import { describe, expect, it } from 'vitest';
import { takeExternal, type ExternalStore, type Newness } from '../../src/schedule/external-intake.js';

interface Link {
  url: string;
  host: string;
}
interface Answer extends Newness {
  url: string;
  host: string;
}

/** the pulled page: its site, and its own id */
interface Page {
  site: number;
  page: number;
}

const link = (url: string): Link => ({ url, host: new URL(url).host });

/**
 * A store in plain data: the pairs of each page, the URLs and hosts of each site and of all, the
 * deleted URLs, and the log of what the count told it, in order. Its answer is one reused object,
 * as the live store's is.
 */
class Known implements ExternalStore<Link, Answer, Page> {
  pairs = new Set<string>();
  deleted = new Set<string>();
  siteUrls = new Set<string>();
  siteHosts = new Set<string>();
  urls = new Set<string>();
  hosts = new Set<string>();
  log: string[] = [];
  private answer: Answer = { url: '', host: '', urlToSite: false, urlToStore: false, hostToSite: false, hostToStore: false };

  store = (c: Page, l: Link) => {
    const pair = `${c.page} ${l.url}`;
    if (this.pairs.has(pair) || this.deleted.has(l.url)) return false;
    this.pairs.add(pair);
    return true;
  };
  ask = (c: Page, l: Link) => {
    this.log.push(`ask ${l.url}`);
    const n = this.answer;
    n.url = l.url;
    n.host = l.host;
    n.urlToSite = !this.siteUrls.has(`${c.site} ${l.url}`);
    n.urlToStore = !this.urls.has(l.url);
    n.hostToSite = !this.siteHosts.has(`${c.site} ${l.host}`);
    n.hostToStore = !this.hosts.has(l.host);
    return n;
  };
  mark = (c: Page, n: Answer) => {
    this.log.push(`mark ${n.url}`);
    this.siteUrls.add(`${c.site} ${n.url}`);
    this.urls.add(n.url);
    this.siteHosts.add(`${c.site} ${n.host}`);
    this.hosts.add(n.host);
  };
}

describe('takeExternal', () => {
  it('a page of new links: every pair pays, every URL new to the site and to the store, every host once', () => {
    const k = new Known();
    const found = takeExternal(k, { site: 1, page: 10 }, [link('http://a.example/1'), link('http://a.example/2'), link('http://b.example/')]);
    expect(found).toEqual({ rewards: { urls: 3, hosts: 2, pairs: 3 }, newUrls: 3, newHosts: 2 });
    expect(k.log).toEqual(['ask http://a.example/1', 'mark http://a.example/1', 'ask http://a.example/2', 'mark http://a.example/2', 'ask http://b.example/', 'mark http://b.example/']);
  });

  it('a URL twice in a page is one pair, asked once', () => {
    const k = new Known();
    const found = takeExternal(k, { site: 1, page: 10 }, [link('http://a.example/'), link('http://a.example/')]);
    expect(found).toEqual({ rewards: { urls: 1, hosts: 1, pairs: 1 }, newUrls: 1, newHosts: 1 });
    expect(k.log).toEqual(['ask http://a.example/', 'mark http://a.example/']);
  });

  it('another page of the site: a footer link pays a pair alone, and is not marked again', () => {
    const k = new Known();
    takeExternal(k, { site: 1, page: 10 }, [link('http://a.example/footer')]);
    k.log = [];
    const found = takeExternal(k, { site: 1, page: 11 }, [link('http://a.example/footer'), link('http://a.example/new')]);
    expect(found).toEqual({ rewards: { urls: 1, hosts: 0, pairs: 2 }, newUrls: 1, newHosts: 0 });
    expect(k.log).toEqual(['ask http://a.example/footer', 'ask http://a.example/new', 'mark http://a.example/new']);
  });

  it('another site: the URL and host pay its rewards again, and are new to the store no more', () => {
    const k = new Known();
    takeExternal(k, { site: 1, page: 10 }, [link('http://a.example/')]);
    expect(takeExternal(k, { site: 2, page: 20 }, [link('http://a.example/')])).toEqual({ rewards: { urls: 1, hosts: 1, pairs: 1 }, newUrls: 0, newHosts: 0 });
  });

  it('a pair the store does not keep (the page holds it, or a user deleted the link) earns nothing and is not asked', () => {
    const k = new Known();
    takeExternal(k, { site: 1, page: 10 }, [link('http://a.example/')]);
    k.deleted.add('http://c.example/gone');
    k.log = [];
    const found = takeExternal(k, { site: 1, page: 10 }, [link('http://a.example/'), link('http://c.example/gone')]);
    expect(found).toEqual({ rewards: { urls: 0, hosts: 0, pairs: 0 }, newUrls: 0, newHosts: 0 });
    expect(k.log).toEqual([]);
  });

  it('no links earn nothing', () => {
    expect(takeExternal(new Known(), { site: 1, page: 10 }, [])).toEqual({ rewards: { urls: 0, hosts: 0, pairs: 0 }, newUrls: 0, newHosts: 0 });
  });
});
