// The pure parts of `beebot refresh` (src/refresh): scent arithmetic on a hand-made
// sequence, the A·size + B fit, the schedules' plans, the value of change, the quality formula.
import { describe, expect, it } from 'vitest';
import { changedChars, contentValue, LINK_CHARS } from '../../src/refresh/content-value.js';
import { checkMs, DEFAULT_COST, fitCheckCost } from '../../src/refresh/check-cost.js';
import { indexQuality } from '../../src/refresh/quality.js';
import { optimalFrequencies, planIteration, type Candidate } from '../../src/refresh/schedules.js';
import { changeRate, observations, priorInterval, type Observation } from '../../src/refresh/change-rate.js';
import { afterCheck, afterIteration, initialScent } from '../../src/refresh/scent.js';
import { bytesPrint, pagePrint } from '../../src/page/page-fingerprint.js';
import { analysePage } from '../../src/page/analyse.js';
import { siteRule } from '../../src/url/scope.js';

const cand = (id: number, o: Partial<Candidate> = {}): Candidate => ({ id, bytes: 1000, scent: 0, last: 0, history: [], ...o });
/** n checks `every` ms apart, the first x of them finding a change */
const hist = (n: number, x: number, every: number): Observation[] => Array.from({ length: n }, (_, i) => ({ ms: every, changed: i < x }));

describe('scent', () => {
  it('a check halves the scent and adds the value of what it found; an iteration adds ΔS', () => {
    // hand-made: scent 10, three checks finding 0, 1023 and 0 changed characters, ΔS = 1 after each iteration
    let s = 10;
    const seq: number[] = [];
    for (const found of [0, 1023, 0]) {
      s = afterIteration(afterCheck(s, found, 'log'), 1);
      seq.push(s);
    }
    // 10/2 + 0 + 1 = 6; 6/2 + log2(1024) + 1 = 14; 14/2 + 0 + 1 = 8
    expect(seq).toEqual([6, 14, 8]);
    expect(initialScent(1023, 'log')).toBe(10);
    expect(initialScent(null, 'log')).toBe(0);
    expect(afterCheck(8, 5, 'binary')).toBe(5);
    expect(afterCheck(8, 5, 'linear')).toBe(9);
  });

  /** Run the scent schedule over pages whose checks find `changes(page, iteration)` characters; the ids checked per iteration. */
  function simulate(delta: number, iterations: number, changes: (id: number, it: number) => number): number[][] {
    const pages = [cand(1, { scent: 10 }), cand(2, { scent: 10 }), cand(3, { scent: 10 })];
    const out: number[][] = [];
    for (let it = 0; it < iterations; it++) {
      // budget: one check (cost 100 ms each)
      const plan = planIteration(pages, 'scent', { budgetMs: 100, cost: { a: 0, b: 100, n: 0 }, now: it });
      out.push(plan.map((p) => p.id));
      for (const p of plan) {
        const c = pages.find((x) => x.id === p.id)!;
        c.scent = afterCheck(c.scent, changes(c.id, it), 'log');
        c.last = it;
      }
      for (const c of pages) c.scent = afterIteration(c.scent, delta);
    }
    return out;
  }

  it('ΔS = 0: pages found unchanged a few times are never checked again', () => {
    // page 1 changes at every check (1023 characters); pages 2 and 3 never
    const seq = simulate(0, 12, (id) => (id === 1 ? 1023 : 0)).flat();
    expect(seq.slice(-6)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(seq.filter((id) => id !== 1).length).toBeLessThanOrEqual(4);
  });

  it('ΔS → ∞: uniform revisiting, whatever the pages harvest', () => {
    const seq = simulate(1e9, 10, (id) => (id === 1 ? 1023 : 0)).flat();
    // the first iteration still sees the starting scents; from then on halving alone orders the pages
    expect(seq.slice(1)).toEqual([1, 2, 3, 1, 2, 3, 1, 2, 3]);
  });

  it('a moderate ΔS revisits the unchanged pages now and then', () => {
    const seq = simulate(2, 30, (id) => (id === 1 ? 1023 : 0)).flat();
    const n = (id: number) => seq.filter((x) => x === id).length;
    expect(n(1)).toBeGreaterThan(n(2) + n(3));
    expect(n(2)).toBeGreaterThan(0);
    expect(n(3)).toBeGreaterThan(0);
  });
});

describe('the check-time model A·size + B', () => {
  it('is the least-squares line through the fetch log', () => {
    // ms = 0.01 · bytes + 50 exactly
    const exact = [1000, 5000, 20000, 80000].map((bytes) => ({ bytes, ms: 0.01 * bytes + 50 }));
    const fit = fitCheckCost(exact);
    expect(fit.a).toBeCloseTo(0.01, 10);
    expect(fit.b).toBeCloseTo(50, 8);
    expect(fit.n).toBe(4);
    expect(checkMs(fit, 10000)).toBeCloseTo(150, 8);
    // noisy: the hand-computed fit of (0,10) (10,20) (20,40): a = 1.5, b = 8.333…
    const noisy = fitCheckCost([{ bytes: 0, ms: 10 }, { bytes: 10, ms: 20 }, { bytes: 20, ms: 40 }]);
    expect(noisy.a).toBeCloseTo(1.5, 10);
    expect(noisy.b).toBeCloseTo(25 / 3, 10);
  });

  it('falls back sensibly: nothing to fit, one size only, a falling line, a negative intercept', () => {
    expect(fitCheckCost([])).toEqual(DEFAULT_COST);
    expect(fitCheckCost([{ bytes: 100, ms: 10 }, { bytes: 100, ms: 30 }])).toEqual({ a: 0, b: 20, n: 2 });
    expect(fitCheckCost([{ bytes: 0, ms: 30 }, { bytes: 100, ms: 10 }])).toEqual({ a: 0, b: 20, n: 2 });
    const through0 = fitCheckCost([{ bytes: 100, ms: 1 }, { bytes: 200, ms: 10 }]);
    expect(through0.b).toBe(0);
    expect(through0.a).toBeCloseTo((100 * 1 + 200 * 10) / (100 * 100 + 200 * 200), 12);
  });
});

describe('planning an iteration', () => {
  const cost = { a: 0.01, b: 100, n: 0 };

  it('takes pages by priority while their estimated time fits, passing over one too big, unread pages first', () => {
    const pages = [cand(1, { scent: 5, bytes: 1000 }), cand(2, { scent: 9, bytes: 100000 }), cand(3, { scent: 7, bytes: 1000 }), cand(4, { bytes: null })];
    // estimated: 1 → 110 ms, 2 → 1100 ms, 3 → 110 ms, 4 (unread, mean of the read: 34000 bytes) → 440 ms
    const plan = planIteration(pages, 'scent', { budgetMs: 700, cost, now: 0 });
    expect(plan.map((p) => p.id)).toEqual([4, 3, 1]);
    expect(plan.map((p) => p.estMs)).toEqual([440, 110, 110]);
  });

  it('uniform: the page checked longest ago first; change-rate: the most expected changes since the last check', () => {
    const pages = [cand(1, { last: 30 }), cand(2, { last: 10 }), cand(3, { last: null }), cand(4, { last: 20 })];
    expect(planIteration(pages, 'uniform', { budgetMs: 1e9, cost, now: 100 }).map((p) => p.id)).toEqual([3, 2, 4, 1]);
    const rated = [cand(1, { last: 90, history: hist(10, 10, 10) }), cand(2, { last: 0, history: hist(10, 0, 10) }), cand(3, { last: 50, history: hist(10, 5, 10) })];
    expect(planIteration(rated, 'change-rate', { budgetMs: 1e9, cost, now: 100 }).map((p) => p.id)).toEqual([3, 1, 2]);
  });

  it("Cho & Garcia-Molina's estimator with a pseudo-count: no page's rate is 0, none is infinite", () => {
    // the prior alone (one interval of 10 ms that found a change, one that did not): e^(10λ) = 2
    expect(changeRate([], 10)).toBeCloseTo(Math.log(2) / 10, 9);
    // never seen changing in n checks at interval I: 1·I/(e^(λI) − 1) = (n + 1)·I, λ = ln(1 + 1/(n + 1)) / I; above 0, falling with n
    const never = [1, 5, 50].map((n) => changeRate(hist(n, 0, 10), 10));
    never.forEach((r, k) => expect(r).toBeCloseTo(Math.log(1 + 1 / ([1, 5, 50][k]! + 1)) / 10, 9));
    expect(never[0]! > never[1]! && never[1]! > never[2]! && never[2]! > 0).toBe(true);
    // seen changing at every check: (n + 1)·I/(e^(λI) − 1) = I, λ = ln(n + 2) / I; finite, rising with n
    expect(changeRate(hist(10, 10, 10), 10)).toBeCloseTo(Math.log(12) / 10, 9);
    // half of the checks: e^(λI) = 2, Cho & Garcia-Molina's ln 2 per interval
    expect(changeRate(hist(10, 5, 10), 10)).toBeCloseTo(Math.log(2) / 10, 9);
    // irregular intervals: the likelihood equation holds at the estimate
    const mixed: Observation[] = [{ ms: 5, changed: true }, { ms: 40, changed: false }, { ms: 100, changed: true }, { ms: 0, changed: true }];
    const r = changeRate(mixed, 20);
    expect(5 / Math.expm1(5 * r) + 100 / Math.expm1(100 * r) + 20 / Math.expm1(20 * r)).toBeCloseTo(40 + 20, 6);
    expect(() => changeRate([], 0)).toThrow(RangeError);
  });

  it('a page\'s history: each check closes the interval since the last read or check; the prior is the mean interval', () => {
    // read by the crawl at 100, checked at 160 (changed), 200 (same), read again at 250, checked at 300 (changed)
    expect(observations([250, 100], [{ at: 300, changed: true }, { at: 160, changed: true }, { at: 200, changed: false }])).toEqual([
      { ms: 60, changed: true }, { ms: 40, changed: false }, { ms: 50, changed: true },
    ]);
    // a check with nothing before it observes nothing
    expect(observations([], [{ at: 5, changed: true }])).toEqual([]);
    expect(priorInterval([[{ ms: 60, changed: true }], [], [{ ms: 40, changed: false }, { ms: 0, changed: true }]], 999)).toBe(50);
    expect(priorInterval([[], []], 999)).toBe(999);
  });

  it('change-rate starves no page: pages changing at every check, 2 checks per iteration, each checked about as often', () => {
    // read at 0; 30 iterations 10 ms apart: 60 checks over 6 pages, 10 each when fair
    const pages = Array.from({ length: 6 }, (_, i) => cand(i + 1, { last: 0 }));
    const checked = new Map<number, number>();
    for (let it = 1; it <= 30; it++) {
      const now = it * 10;
      for (const p of planIteration(pages, 'change-rate', { budgetMs: 2, cost: { a: 0, b: 1, n: 0 }, now })) {
        const c = pages.find((x) => x.id === p.id)!;
        c.history = [...c.history, { ms: now - c.last!, changed: true }];
        c.last = now;
        checked.set(c.id, (checked.get(c.id) ?? 0) + 1);
      }
    }
    const counts = pages.map((p) => checked.get(p.id) ?? 0);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(60);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(8);
  });

  it('optimal frequencies', () => {
    const pages = [
      { id: 1, rate: 1e-3, weight: 1, costMs: 1 },
      { id: 2, rate: 1e-2, weight: 1, costMs: 1 },
      { id: 3, rate: 10, weight: 1, costMs: 1 }, // changes far too often to keep fresh
      { id: 4, rate: 0, weight: 1, costMs: 1 },
    ];
    const f = optimalFrequencies(pages, 0.005);
    const used = pages.reduce((s, p) => s + f.get(p.id)! * p.costMs, 0);
    expect(used).toBeCloseTo(0.005, 6);
    expect(f.get(3)).toBe(0);
    expect(f.get(4)).toBe(0);
    expect(f.get(2)!).toBeGreaterThan(f.get(1)!);
  });
});

describe('the value of change', () => {
  it('counts text size changed plus a URL length per link added or gone', () => {
    expect(contentValue(0, 'log')).toBe(0);
    expect(contentValue(1023, 'log')).toBe(10);
    expect(changedChars({ fingerprint: 1, textSize: 500 }, { fingerprint: 1, textSize: 500 }, 0, 0)).toBe(0);
    expect(changedChars({ fingerprint: 1, textSize: 500 }, { fingerprint: 2, textSize: 620 }, 1, 2)).toBe(120 + 3 * LINK_CHARS);
    expect(changedChars({ fingerprint: 1, textSize: 500 }, { fingerprint: 2, textSize: 500 }, 0, 0)).toBe(1);
    // read before fingerprints were kept: judged by its links
    expect(changedChars({ fingerprint: null, textSize: null }, { fingerprint: 2, textSize: 500 }, 2, 0)).toBe(2 * LINK_CHARS);
  });

  it('fingerprints the visible text and the links, not the markup or the whitespace', () => {
    // whitespace is layout: none of it counts
    const links = (keys: string[]) => ({ internal: keys.map((key) => ({ url: key, key })), external: [], bad: [] });
    const a = pagePrint('Title  some\n   words', links(['http://a/1', 'http://a/2']));
    expect(pagePrint(' Title some words ', links(['http://a/1', 'http://a/2']))).toEqual(a);
    expect(pagePrint('Title some words', links(['http://a/1'])).fingerprint).not.toBe(a.fingerprint);
    expect(pagePrint('Title some other words', links(['http://a/1', 'http://a/2'])).fingerprint).not.toBe(a.fingerprint);
    expect(a.textSize).toBe('Titlesomewords'.length);
    expect(Number.isSafeInteger(a.fingerprint)).toBe(true);
    expect(bytesPrint(new Uint8Array([1, 2, 3]))).toEqual(bytesPrint(new Uint8Array([1, 2, 3])));
    expect(bytesPrint(new Uint8Array([1, 2, 3])).textSize).toBe(3);
  });

  it('a page re-read with new markup, scripts or indentation keeps its fingerprint', () => {
    const scope = { rule: siteRule(new URL('http://site.test/'), 'host'), nested: [], mode: 'standard' as const };
    const page = (html: string) => analysePage(Buffer.from(html), 'http://site.test/', 'text/html; charset=utf-8', scope, 'windows-1252').print;
    const one = page('<html><head><title>T</title><script>var token = 1</script></head><body><p class="a">Héllo <b>world</b></p> <a href="/x">x</a></body></html>');
    const two = page('<html><head><title>T</title><script>var token = 2</script></head><body>\n  <p class="b" id="z">Héllo\n   <i>world</i></p>\n<!-- built 5 -->\n<a href="/x" data-n="9">x</a></body></html>');
    const three = page('<html><head><title>T</title></head><body><p>Hello world</p> <a href="/x">x</a></body></html>');
    expect(two).toEqual(one);
    expect(three.fingerprint).not.toBe(one.fingerprint);
  });
});

describe('index quality Q(j) (formula (1) as read)', () => {
  it('rewards content still current, penalises content changed or deleted, and counts unindexed live pages only in Q_max', () => {
    const { q, qMax } = indexQuality([
      { alive: true, liveChars: 1023, indexed: true, currentChars: 1023, changedChars: 0 }, // fresh: +10
      { alive: true, liveChars: 1023, indexed: true, currentChars: 511, changedChars: 7 }, // changed: +9 − 3
      { alive: false, liveChars: 0, indexed: true, currentChars: 0, changedChars: 255 }, // deleted: −8
      { alive: true, liveChars: 1023, indexed: false, currentChars: 0, changedChars: 0 }, // new, not fetched: 0
    ]);
    expect(q).toBeCloseTo(10 + 9 - 3 - 8, 12);
    expect(qMax).toBeCloseTo(30, 12);
  });
});
