// Each distinct external URL checked once (the rules tested directly, with a check function of
// the test's own; test/check/check-url.test.ts checks URLs over real HTTP, test/map/map-check.test.ts
// runs `beebot check`): from the cache unless --recheck, at most --max now, saved as they come.
import { describe, expect, it } from 'vitest';
import { checkExternals, type ExternalCheckOptions } from '../../src/check/check-externals.js';
import type { CachedCheck, SiteExternal, UrlCheck } from '../../src/store/url-checks.js';

const ext = (name: string): SiteExternal => ({ key: `${name}.example/`, url: `https://${name}.example/`, linkedFrom: [{ url: 'http://s.test/', anchor: name }] });
const list = ['a', 'b', 'c', 'd', 'e'].map(ext);
const old = (e: SiteExternal, status: number): CachedCheck => ({ url: e.url, key: e.key, method: 'HEAD', status, finalUrl: e.url, error: null, checkedAt: '2025-12-01T00:00:00.000Z' });
const all: ExternalCheckOptions = { max: null, recheck: false, concurrency: 2 };

/** A check that answers from `answers` (by URL; 200 when not named) and records what it was asked. */
function checker(answers: Record<string, Partial<UrlCheck>> = {}) {
  const asked: string[] = [];
  const saved: CachedCheck[] = [];
  const check = async (url: string): Promise<UrlCheck> => {
    asked.push(url);
    await new Promise((r) => setImmediate(r));
    return { url, method: 'HEAD', status: 200, finalUrl: url, error: null, ...answers[url] };
  };
  return { asked, saved, check, save: (c: CachedCheck) => void saved.push(c) };
}

describe('checkExternals', () => {
  it('checks every URL not in the cache, saves each with its key and time, and gives all in the order of the list', async () => {
    const c = checker({ 'https://c.example/': { status: 404 } });
    const cache = new Map([[list[1]!.key, old(list[1]!, 200)]]);
    const before = new Date().toISOString();
    const out = await checkExternals(list, cache, all, c.check, c.save);
    expect(out.results.map((r) => [r.ext.key, r.check.status])).toEqual([['a.example/', 200], ['b.example/', 200], ['c.example/', 404], ['d.example/', 200], ['e.example/', 200]]);
    expect([...c.asked].sort()).toEqual(['https://a.example/', 'https://c.example/', 'https://d.example/', 'https://e.example/']);
    expect(c.saved.map((s) => s.key).sort()).toEqual(['a.example/', 'c.example/', 'd.example/', 'e.example/']);
    expect(c.saved.every((s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(s.checkedAt) && s.checkedAt >= before && s.checkedAt <= new Date().toISOString())).toBe(true);
    expect(out.results[1]!.check).toBe(cache.get('b.example/')); // the cached answer as it was
    expect([out.checked, out.cached, out.unchecked, out.unanswered]).toEqual([4, 1, 0, 0]);
  });

  it('--recheck asks again for what the cache holds', async () => {
    const c = checker();
    const cache = new Map(list.map((e) => [e.key, old(e, 500)]));
    const out = await checkExternals(list, cache, { ...all, recheck: true }, c.check, c.save);
    expect(c.asked.length).toBe(5);
    expect(out.results.map((r) => r.check.status)).toEqual([200, 200, 200, 200, 200]);
    expect([out.checked, out.cached, out.unchecked]).toEqual([5, 0, 0]);
  });

  it('--max checks at most that many now, the first in the list; cached ones do not count against it; the rest are left unchecked', async () => {
    const c = checker();
    const cache = new Map([[list[0]!.key, old(list[0]!, 200)]]);
    const out = await checkExternals(list, cache, { ...all, max: 2 }, c.check, c.save);
    expect([...c.asked].sort()).toEqual(['https://b.example/', 'https://c.example/']);
    expect(out.results.map((r) => r.ext.key)).toEqual(['a.example/', 'b.example/', 'c.example/']);
    expect([out.checked, out.cached, out.unchecked]).toEqual([2, 1, 2]);
    const none = await checkExternals(list, new Map(), { ...all, max: 0 }, checker().check, () => undefined);
    expect([none.results.length, none.checked, none.unchecked]).toEqual([0, 0, 5]);
  });

  it('counts as unanswered only the URLs checked now that got no status, not the broken ones nor the cached', async () => {
    const c = checker({ 'https://a.example/': { status: null, error: 'refused' }, 'https://b.example/': { status: 503 } });
    const cache = new Map([[list[4]!.key, { ...old(list[4]!, 200), status: null, error: 'dns' }]]);
    const out = await checkExternals(list, cache, all, c.check, c.save);
    expect(out.unanswered).toBe(1);
  });

  it('runs at most `concurrency` checks at once, and at least one', async () => {
    for (const [concurrency, most] of [[2, 2], [0, 1], [10, 5]] as const) {
      let running = 0;
      let peak = 0;
      const check = async (url: string): Promise<UrlCheck> => {
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return { url, method: 'HEAD', status: 200, finalUrl: url, error: null };
      };
      const out = await checkExternals(list, new Map(), { ...all, concurrency }, check, () => undefined);
      expect([peak, out.checked], `concurrency ${concurrency}`).toEqual([most, 5]);
    }
  });
});
