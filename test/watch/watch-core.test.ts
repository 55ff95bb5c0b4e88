// The pure core of `beebot watch`: publication times read from pages, appearance-time
// bounds, hub groups and their merging, hourly counts and the hour/day encoding, the random
// forest learning a day/night + weekday/weekend rhythm, the learned, Poisson and fixed
// schedules' bounds, and the run measures' arithmetic. Plain data, no database, no network.
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { appearance, MIDPOINT_SPAN } from '../../src/watch/appearance.js';
import { encodeHour, FEATURES, hourAndDay, hourlyCounts, hourStart, HOUR, WINDOW_HOURS, type HourCount } from '../../src/watch/features.js';
import { groupKey, mergedCounts, mergeGroups } from '../../src/watch/groups.js';
import { crossValidatedR2, MIN_HISTORY, modelReady, newestR2, r2, RateModel, validate } from '../../src/watch/model.js';
import { dateFromUrl, EARLIEST, parseIsoDate, PublishedCollector, publishedTime } from '../../src/watch/published.js';
import { changeRate, changeRateOf, fixedNext, learnedNext, poissonNext, type Check } from '../../src/watch/schedule.js';
import { relativeChange, runMetrics, weightedScore, type RunMetrics } from '../../src/watch/score.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0); // Monday 23 November 2026, noon UTC
const MIN = 60_000;

describe('publication time of a page', () => {
  const url = 'https://news.example.org/news/item-17';

  it('is read from <meta property="article:published_time">, with its offset', () => {
    const html = '<html><head><meta property="article:published_time" content="2026-11-23T09:30:00+01:00"></head><body>x</body></html>';
    expect(publishedTime(html, url, NOW)).toBe(Date.UTC(2026, 10, 23, 8, 30));
  });

  it('is read from JSON-LD datePublished, at the top, in an array, or inside @graph', () => {
    const ld = (json: string) => `<script type="application/ld+json">${json}</script>`;
    expect(publishedTime(ld('{"@type":"NewsArticle","datePublished":"2026-11-22T18:00:00Z"}'), url, NOW)).toBe(Date.UTC(2026, 10, 22, 18));
    expect(publishedTime(ld('[{"@type":"Organization"},{"@type":"Article","datePublished":"2026-11-21"}]'), url, NOW)).toBe(Date.UTC(2026, 10, 21));
    const graph = '{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"N"},{"@type":"WebPage","isPartOf":{"@id":"#w"}},{"@type":"NewsArticle","datePublished":"2026-11-20T07:15:00.000Z"}]}';
    expect(publishedTime(ld(graph), url, NOW)).toBe(Date.UTC(2026, 10, 20, 7, 15));
    // a broken script does not hide a later good one
    expect(publishedTime(ld('{oops') + ld('{"datePublished":"2026-11-19T00:00:00Z"}'), url, NOW)).toBe(Date.UTC(2026, 10, 19));
  });

  it('is read from the first <time datetime>', () => {
    const html = '<article><time datetime="2026-11-23 10:05">this morning</time><time datetime="2020-01-01">old</time></article>';
    expect(publishedTime(html, url, NOW)).toBe(Date.UTC(2026, 10, 23, 10, 5));
  });

  it('is read from a dated URL: /2026/11/23/…, /2026-11-23-…, /20261123/', () => {
    expect(dateFromUrl('https://e.org/2026/11/23/the-story')).toBe(Date.UTC(2026, 10, 23));
    expect(dateFromUrl('https://e.org/blog/2026-11-22-the-story.html')).toBe(Date.UTC(2026, 10, 22));
    expect(dateFromUrl('https://e.org/archive/20261121/story')).toBe(Date.UTC(2026, 10, 21));
    expect(dateFromUrl('https://e.org/items/1234567890')).toBeNull(); // digits that are no date
    expect(dateFromUrl('https://e.org/2026/02/30/x')).toBeNull(); // no such day
    expect(dateFromUrl('https://e.org/x?d=2026-11-23')).toBeNull(); // the query is not the path
    expect(publishedTime('<p>no date here</p>', 'https://e.org/2026/11/23/story', NOW)).toBe(Date.UTC(2026, 10, 23));
  });

  it('can be collected from the events of a parse the caller already makes', () => {
    const c = new PublishedCollector();
    const anchors: string[] = [];
    const parser = new Parser({
      onopentag(name, attrs) {
        c.onopentag(name, attrs);
        if (name === 'a' && attrs.href) anchors.push(attrs.href);
      },
      ontext: (t) => c.ontext(t),
      onclosetag: (name) => c.onclosetag(name),
    });
    parser.write('<a href="/x">x</a><script type="application/ld+json">{"@graph":[{"datePub');
    parser.end('lished":"2026-11-23T06:00:00Z"}]}</script>'); // split across chunks
    expect(anchors).toEqual(['/x']);
    expect(c.result('https://e.org/x', NOW)).toBe(Date.UTC(2026, 10, 23, 6));
  });

  it('ranks meta over JSON-LD over <time> over the URL', () => {
    const html =
      '<time datetime="2026-11-03">t</time><script type="application/ld+json">{"datePublished":"2026-11-02"}</script>' +
      '<meta property="article:published_time" content="2026-11-01">';
    expect(publishedTime(html, 'https://e.org/2026/11/04/x', NOW)).toBe(Date.UTC(2026, 10, 1));
    expect(publishedTime(html.replace(/<meta[^>]*>/, ''), 'https://e.org/2026/11/04/x', NOW)).toBe(Date.UTC(2026, 10, 2));
  });

  it('rejects nonsense: far future, before 1995, malformed; the next source is used instead', () => {
    const meta = (c: string) => `<meta property="article:published_time" content="${c}">`;
    expect(publishedTime(meta('2099-01-01T00:00:00Z'), 'https://e.org/x', NOW)).toBeNull();
    expect(publishedTime(meta('1970-01-01T00:00:00Z'), 'https://e.org/x', NOW)).toBeNull();
    expect(publishedTime(meta('yesterday'), 'https://e.org/x', NOW)).toBeNull();
    expect(publishedTime(meta('2099-01-01') + '<time datetime="2026-11-20">t</time>', 'https://e.org/x', NOW)).toBe(Date.UTC(2026, 10, 20));
    expect(parseIsoDate('2026-13-01')).toBeNull();
    expect(parseIsoDate('2026-11-23T25:00')).toBeNull();
    expect(parseIsoDate('1994-12-31')! < EARLIEST).toBe(true);
  });
});

describe('appearance time of a new item', () => {
  const last = NOW - 3 * HOUR;

  it('is the publication time when it lies in (last check, this check]', () => {
    expect(appearance(last, NOW, NOW - HOUR)).toEqual({ from: last, to: NOW, point: NOW - HOUR, source: 'published' });
    expect(appearance(last, NOW, NOW).point).toBe(NOW); // the upper bound is inclusive
  });

  it('ignores a publication time outside the interval (an old item newly linked, a wrong clock)', () => {
    expect(appearance(last, NOW, last)).toEqual({ from: last, to: NOW, point: null, source: 'interval' }); // the lower bound is exclusive
    expect(appearance(last, NOW, last - 10 * HOUR).point).toBeNull();
    expect(appearance(last, NOW, NOW + MIN).point).toBeNull();
  });

  it('is the midpoint when the checks are less than an hour apart, else only the interval', () => {
    expect(appearance(NOW - 20 * MIN, NOW)).toEqual({ from: NOW - 20 * MIN, to: NOW, point: NOW - 10 * MIN, source: 'midpoint' });
    expect(appearance(NOW - MIDPOINT_SPAN + 1, NOW).source).toBe('midpoint');
    expect(appearance(NOW - MIDPOINT_SPAN, NOW)).toEqual({ from: NOW - HOUR, to: NOW, point: null, source: 'interval' });
    expect(() => appearance(NOW, NOW)).toThrow(RangeError);
  });
});

describe('hub groups', () => {
  it('are keyed by host and first path segment', () => {
    expect(groupKey('https://Example.org/news/2026/11/x.html')).toBe('example.org/news');
    expect(groupKey('https://example.org/news')).toBe('example.org/news');
    expect(groupKey('https://example.org/')).toBe('example.org');
    expect(groupKey('http://example.org:8080/Pubs/?page=2')).toBe('example.org:8080/Pubs');
  });

  it('with too few items are merged into their host, deterministically', () => {
    const counts = new Map([
      ['b.org/x', 5],
      ['a.org/news', 1500],
      ['a.org/events', 40],
      ['a.org/jobs', 999],
      ['a.org', 10],
    ]);
    const into = mergeGroups(counts, 1000);
    expect(Object.fromEntries(into)).toEqual({ 'a.org': 'a.org', 'a.org/events': 'a.org', 'a.org/jobs': 'a.org', 'a.org/news': 'a.org/news', 'b.org/x': 'b.org' });
    expect(Object.fromEntries(mergedCounts(counts, 1000))).toEqual({ 'a.org': 1049, 'a.org/news': 1500, 'b.org': 5 });
    // the input's order does not matter
    expect(mergeGroups(new Map([...counts].reverse()), 1000)).toEqual(into);
    // the threshold is a parameter
    expect(mergeGroups(counts, 10).get('a.org/events')).toBe('a.org/events');
  });
});

describe('hourly counts and features', () => {
  it('one-hot encode hour of day (0–23) and day of week (24 + 0 for Sunday … 6)', () => {
    const x = encodeHour(NOW); // Monday 12:00 UTC
    expect(x.length).toBe(FEATURES);
    expect(x.reduce((a, b) => a + b, 0)).toBe(2);
    expect(x[12]).toBe(1);
    expect(x[24 + 1]).toBe(1);
    // in UTC+02:00 that hour is 14:00; at 23:00 UTC on Sunday it is already Monday 01:00
    expect(encodeHour(NOW, 120)[14]).toBe(1);
    const sundayLate = Date.UTC(2026, 10, 22, 23);
    expect(hourAndDay(sundayLate)).toEqual({ hour: 23, day: 0 });
    expect(hourAndDay(sundayLate, 120)).toEqual({ hour: 1, day: 1 });
    // a half-hour zone aligns hours to its own clock
    expect(hourStart(Date.UTC(2026, 10, 23, 12, 10), 330)).toBe(Date.UTC(2026, 10, 23, 11, 30));
  });

  it('are 720 hour-aligned rows ending before the current hour; points count 1, intervals are spread', () => {
    const end = NOW + 25 * MIN; // in the 12:00 hour, which is not finished
    const items = [
      { from: 0, to: 0, point: NOW - 30 * MIN }, // 11:30 → the 11:00 row
      { from: NOW - 3 * HOUR, to: NOW, point: null }, // 09:00–12:00, a third in each of 09, 10, 11
      { from: NOW - HOUR - 30 * MIN, to: NOW - 30 * MIN, point: null }, // 10:30–11:30: half in 10, half in 11
      { from: 0, to: 0, point: NOW + 10 * MIN }, // in the unfinished hour: not counted
      { from: 0, to: 0, point: NOW - 40 * 24 * HOUR }, // before the window
    ];
    const rows = hourlyCounts(items, end);
    expect(rows.length).toBe(WINDOW_HOURS);
    expect(rows.at(-1)!.start).toBe(NOW - HOUR);
    expect(rows[0]!.start).toBe(NOW - 720 * HOUR);
    expect(rows.every((r, i) => i === 0 || r.start - rows[i - 1]!.start === HOUR)).toBe(true);
    expect(rows.at(-1)!.count).toBeCloseTo(1 + 1 / 3 + 1 / 2, 12);
    expect(rows.at(-2)!.count).toBeCloseTo(1 / 3 + 1 / 2, 12);
    expect(rows.at(-3)!.count).toBeCloseTo(1 / 3, 12);
    expect(rows.reduce((a, r) => a + r.count, 0)).toBeCloseTo(3, 12);
    // an interval reaching past the window's start keeps only its share inside it
    const older = hourlyCounts([{ from: NOW - 721 * HOUR, to: NOW - 719 * HOUR, point: null }], end);
    expect(older.reduce((a, r) => a + r.count, 0)).toBeCloseTo(0.5, 12);
  });
});

/** A seeded uniform [0, 1) (mulberry32), for the synthetic history. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Items per hour of a hub that publishes by day on weekdays, little at night and at weekends. */
function trueRate(t: number): number {
  const { hour, day } = hourAndDay(t);
  const daytime = hour >= 8 && hour < 18;
  const weekend = day === 0 || day === 6;
  return daytime ? (weekend ? 1 : 6) : weekend ? 0.1 : 0.5;
}

/** 720 hours of Poisson counts at trueRate, ending at NOW's hour. */
function history(seed: number): HourCount[] {
  const u = rng(seed);
  const poisson = (lambda: number): number => {
    let k = 0;
    for (let p = Math.exp(-lambda), s = p, x = u(); x > s; ) p *= lambda / ++k, s += p;
    return k;
  };
  return Array.from({ length: WINDOW_HOURS }, (_, i) => {
    const start = hourStart(NOW) - (WINDOW_HOURS - i) * HOUR;
    return { start, count: poisson(trueRate(start)) };
  });
}

describe('the rate model', () => {
  const rows = history(7);

  it('learns a day/night and weekday/weekend rhythm, validated on the newest data and by cross-validation', () => {
    const model = RateModel.fit(rows, { trees: 20, seed: 1 });
    const monday = Date.UTC(2026, 10, 30);
    const saturday = Date.UTC(2026, 10, 28);
    expect(model.rate(monday + 11 * HOUR)).toBeGreaterThan(4);
    expect(model.rate(monday + 3 * HOUR)).toBeLessThan(1.5);
    // over the working day (08–18 h), Saturday well below Monday, but above Saturday night
    const mean = (day: number, from: number, to: number) => {
      let s = 0;
      for (let h = from; h < to; h++) s += model.rate(day + h * HOUR);
      return s / (to - from);
    };
    expect(mean(saturday, 8, 18)).toBeLessThan(0.6 * mean(monday, 8, 18));
    expect(mean(saturday, 8, 18)).toBeGreaterThan(2 * mean(saturday, 0, 8));
    // the week's table, day * 24 + hour, is what rate() reads
    expect(model.week().length).toBe(168);
    expect(model.week()[1 * 24 + 11]).toBe(model.rate(monday + 11 * HOUR));
    expect(model.week()[6 * 24 + 3]).toBe(model.rate(saturday + 3 * HOUR));
    const v = validate(rows, { trees: 10, seed: 1 });
    expect(v.newest).toBeGreaterThan(0.5);
    expect(v.crossValidated).toBeGreaterThan(0.5);
    // no better than the truth itself: R² of the true rates bounds what any model can reach
    const truth = r2(rows.map((r) => r.count), rows.map((r) => trueRate(r.start)));
    expect(v.newest).toBeLessThan(truth + 0.1);
  });

  it('is deterministic for a seed', () => {
    const a = RateModel.fit(rows, { trees: 5, seed: 3 });
    const b = RateModel.fit(rows, { trees: 5, seed: 3 });
    const hours = rows.slice(0, 168);
    expect(a.predict(hours)).toEqual(b.predict(hours));
    expect(crossValidatedR2(rows.slice(0, 336), 4, { trees: 3, seed: 3 })).toBe(crossValidatedR2(rows.slice(0, 336), 4, { trees: 3, seed: 3 }));
    expect(() => RateModel.fit(rows, { seed: 0.5 })).toThrow(RangeError);
  });

  it('finds nothing to learn in a flat history (R² near or below 0 on new data)', () => {
    const u = rng(5);
    const flat = rows.map((r) => ({ start: r.start, count: u() < 0.3 ? 1 : 0 }));
    expect(newestR2(flat, 0.2, { trees: 5 })).toBeLessThan(0.2);
  });

  it('R² is 1 for exact predictions, 0 for the mean, negative for worse', () => {
    expect(r2([1, 2, 3], [1, 2, 3])).toBe(1);
    expect(r2([1, 2, 3], [2, 2, 2])).toBe(0);
    expect(r2([1, 2, 3], [3, 2, 1])).toBe(-3);
    expect(r2([2, 2], [2, 2])).toBe(1);
  });
});

describe('the schedules', () => {
  const opts = { min: 5 * MIN, max: 4 * HOUR, fixed: 30 * MIN };

  it('learned: checks when the expected new items reach the threshold, integrating hour by hour', () => {
    const midnight = Date.UTC(2026, 10, 23);
    // 0.5/h until 08:00, then 6/h: from 07:00, half an item by 08:00, the other half by 08:05
    const rate = (t: number) => (hourAndDay(t).hour >= 8 ? 6 : 0.5);
    expect(learnedNext(midnight + 7 * HOUR, rate, opts)).toBe(midnight + 8 * HOUR + 5 * MIN);
    expect(learnedNext(midnight + 9 * HOUR, rate, opts)).toBe(midnight + 9 * HOUR + 10 * MIN);
    expect(learnedNext(midnight + 9 * HOUR, rate, { ...opts, threshold: 3 })).toBe(midnight + 9 * HOUR + 30 * MIN);
  });

  it('learned: never sooner than min, never later than max, fixed before there is a model', () => {
    const last = NOW;
    expect(learnedNext(last, () => 1000, opts)).toBe(last + opts.min);
    expect(learnedNext(last, () => 0, opts)).toBe(last + opts.max);
    expect(learnedNext(last, () => 0.01, opts)).toBe(last + opts.max);
    // a group watched for less than a week has no model yet: the fixed interval
    expect(modelReady(NOW - MIN_HISTORY + 1, NOW)).toBe(false);
    expect(modelReady(NOW - 7 * 24 * HOUR, NOW)).toBe(true);
    expect(learnedNext(last, null, opts)).toBe(last + opts.fixed);
    expect(learnedNext(last, null, { ...opts, fixed: 10 * HOUR })).toBe(last + opts.max);
    const model = RateModel.fit(history(11), { trees: 5 });
    for (let h = 0; h < 48; h++) {
      const t = NOW + h * HOUR + 7 * MIN;
      const next = learnedNext(t, (x) => model.rate(x), opts);
      expect(next - t).toBeGreaterThanOrEqual(opts.min);
      expect(next - t).toBeLessThanOrEqual(opts.max);
    }
    expect(() => learnedNext(last, null, { ...opts, min: 0 })).toThrow(RangeError);
  });

  it('Poisson: Cho & Garcia-Molina\'s estimate from a hand-made history', () => {
    // 10 checks an hour apart, 4 found something: λ = −ln(6.5 / 10.5) per hour
    const lambda = -Math.log(6.5 / 10.5) / HOUR;
    expect(changeRate(10, 4, HOUR)).toBeCloseTo(lambda, 18);
    expect(changeRate(10, 0, HOUR)).toBe(0);
    expect(changeRate(10, 10, HOUR)).toBeCloseTo(Math.log(21) / HOUR, 18); // finite when every check found a change
    const found = [false, true, false, false, true, true, false, true, false, false];
    const checks: Check[] = [{ at: NOW, found: false }, ...found.map((f, i) => ({ at: NOW + (i + 1) * HOUR, found: f }))];
    expect(changeRateOf(checks)).toBeCloseTo(lambda, 18);
    const last = NOW + 10 * HOUR;
    expect(poissonNext(checks, opts)).toBeCloseTo(last + 1 / lambda, 0); // ≈ 2.08 h
    expect(poissonNext(checks.slice(0, 1), opts)).toBe(NOW + opts.fixed);
    expect(poissonNext(checks.map((c) => ({ ...c, found: false })), opts)).toBe(last + opts.max);
    expect(poissonNext(checks.map((c) => ({ ...c, found: true })), opts)).toBeCloseTo(last + HOUR / Math.log(21), 0); // ≈ 20 min
    expect(poissonNext(checks.map((c) => ({ ...c, found: true })), { ...opts, min: HOUR })).toBe(last + HOUR);
    expect(fixedNext(NOW, 10_000)).toBe(NOW + 10_000);
  });
});

describe('run measures', () => {
  it('are cost, hit rate and mean delay over the items found', () => {
    const checks = [{ at: 10, found: 0 }, { at: 20, found: 2 }, { at: 30, found: 0 }, { at: 40, found: 1 }];
    const items = [{ appeared: 12, found: 20 }, { appeared: 18, found: 20 }, { appeared: 31, found: 40 }];
    expect(runMetrics(checks, items)).toEqual({ cost: 4, hits: 2, hitRate: 0.5, items: 3, meanDelay: (8 + 2 + 9) / 3 });
    expect(runMetrics([], [])).toEqual({ cost: 0, hits: 0, hitRate: 0, items: 0, meanDelay: null });
  });

  it('weighted score: each measure placed from the worst (0) to the best (1) fixed interval, equally weighted', () => {
    const m = (cost: number, hitRate: number, meanDelay: number | null): RunMetrics => ({ cost, hits: 0, hitRate, items: 0, meanDelay });
    const fixed = [m(2000, 0.2, 10), m(1000, 0.4, 30), m(500, 0.8, 90)];
    expect(weightedScore(m(2000, 0.2, 90), fixed)).toBe(0);
    expect(weightedScore(m(500, 0.8, 10), fixed)).toBe(1);
    expect(weightedScore(m(1250, 0.5, 50), fixed)).toBeCloseTo((0.5 + 0.5 + 0.5) / 3, 12);
    expect(weightedScore(m(1250, 0.5, 50), fixed, { cost: 1, hitRate: 0, delay: 0 })).toBeCloseTo(0.5, 12);
    expect(weightedScore(m(250, 0.8, 10), fixed)).toBeCloseTo((1 + 1 / 6 + 1 + 1) / 3, 12); // beyond the best: above 1
    expect(weightedScore(m(500, 0.8, null), fixed)).toBeCloseTo(2 / 3, 12); // nothing found: no credit for delay
    expect(weightedScore(m(700, 0.3, 40), [m(700, 0.3, 40)])).toBe(1); // references that do not differ
  });

  it('relative change as the article reports it', () => {
    const fixed: RunMetrics = { cost: 2160, hits: 929, hitRate: 0.43, items: 0, meanDelay: 41 };
    const learned: RunMetrics = { cost: 1701, hits: 1072, hitRate: 0.63, items: 0, meanDelay: 35 };
    const c = relativeChange(learned, fixed);
    expect(c.hitRate).toBeCloseTo(0.465, 3);
    expect(c.cost).toBeCloseTo(-0.2125, 4);
    expect(c.meanDelay).toBeCloseTo(-0.146, 3);
  });
});
