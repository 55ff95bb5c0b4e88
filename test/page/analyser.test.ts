// Page analysis on worker threads gives what it gives on the crawl's own thread. The worker runs
// compiled code, so this test loads the build (`npm test` builds first).
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import type { AnalyseJob, FinalPage } from '../../src/page/analyse.js';
import type { Analyser } from '../../src/page/analyser.js';
import { defaults } from '../../src/store/settings.js';
import { siteRule } from '../../src/url/scope.js';

const built = '../../dist/src/page/analyser.js'; // a variable: the build has no type declarations
const { createAnalyser } = (await import(built)) as { createAnalyser: (c: number, cores?: number) => Promise<Analyser> };

const scope = { rule: siteRule(new URL('http://uni.test/'), 'host'), nested: [], mode: 'standard' as const };
const job = (html: Buffer, contentType: string | null = 'text/html'): AnalyseJob => ({
  bytes: html, url: 'http://uni.test/a/', contentType, scope, defaultEncoding: 'windows-1252', settings: defaults,
});
const jobs = [
  job(Buffer.from('<base href="/sub/"><a href="x.html">X</a> <a href="https://other.org/#top" rel="nofollow">Other</a> <a href="mailto:a@b">m</a>')),
  job(iconv.encode('<meta charset="windows-1251"><a href="http://ru.example/">Ссылка на сайт</a><a href="/b">Б</a>', 'win1251'), null),
  job(Buffer.from('<frameset><frame src="/f1"><iframe src="//cdn.example/x"></iframe></frameset><meta http-equiv="refresh" content="0; url=/next">')),
  // the site's parameter rules travel with the job: a tracking parameter dropped on every path
  { ...job(Buffer.from('<a href="/n?utm_source=x&y=1">n</a><a href="/f.pdf">f</a>')), params: new Map([['*', new Map([['utm_source', { kind: 'dropped' as const }]])]]) },
];

describe('analyser', () => {
  it('a worker thread and this thread give the same links and encodings', async () => {
    const worker = await createAnalyser(8, 4);
    const here = await createAnalyser(8, 2);
    try {
      const a = (await Promise.all(jobs.map((j) => worker.analyse(j)))) as FinalPage[];
      const b = await Promise.all(jobs.map((j) => here.analyse(j)));
      expect(a).toEqual(b);
      expect(a[1]!.encoding).toBe('windows-1251');
      expect(a[1]!.links.external[0]).toMatchObject({ url: 'http://ru.example/', anchor: 'Ссылка на сайт' });
      expect(a[0]!.links.internal.map((l) => l.url)).toEqual(['http://uni.test/sub/x.html']);
      expect(a[3]!.links.internal).toMatchObject([{ url: 'http://uni.test/n?y=1' }, { url: 'http://uni.test/f.pdf', hold: { status: 'file', note: 'pdf' } }]);
      // the caller's body is copied, not moved: it stays readable after the hand-over
      expect(jobs[0]!.bytes.length).toBeGreaterThan(0);
    } finally {
      await Promise.all([worker.close(), here.close()]);
    }
  });

  it('a page past the parser\'s limits comes back as unparsed, with the reason, from a worker as from here', async () => {
    const worker = await createAnalyser(8, 4);
    const here = await createAnalyser(8, 2);
    try {
      const deep = job(Buffer.from(`<html><body>${'<div>'.repeat(100_000)}`));
      for (const a of [worker, here]) expect(await a.analyse(deep)).toEqual({ unparsed: 'too-deep: markup nested more than 1024 elements' });
    } finally {
      await Promise.all([worker.close(), here.close()]);
    }
  });

  it('after close, work is refused with an error, not left hanging', async () => {
    const worker = await createAnalyser(8, 4);
    await worker.close();
    await expect(worker.analyse(jobs[0]!)).rejects.toThrow(/closed/);
  });
});
