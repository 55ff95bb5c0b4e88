// WHATWG URL conformance of the runtime parser that resolveHref relies on (WPT urltestdata.json).
// 876/891 pass on Node 20.20.2 (ada 2.9.2). The 15 known mismatches (see
// node20-ada2.9.2-mismatches.json: xn--pokxncvks / "xn--" hosts that Node rejects, opaque paths
// keeping a raw space before ?/#, '^' not encoded in paths) are spec changes newer than ada 2.9.2.
// They are asserted to STILL differ, so the list fails loudly once Node catches up.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveHref } from '../../src/url/url.js';
import { shared } from '../helpers/shared.js';

const dir = shared('testdata/wpt-url/');
const read = (name: string): unknown => JSON.parse(readFileSync(new URL(name, dir), 'utf8'));

const ATTRS = ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash', 'origin'] as const;
type Attr = (typeof ATTRS)[number];
type Case = { input: string; base: string | null; failure?: true } & Partial<Record<Attr, string>>;

const cases = (read('urltestdata.json') as unknown[]).filter((c): c is Case => typeof c === 'object');
// input/base → the attributes Node gets wrong (['(parse)'] when Node throws instead).
type Known = { input: string; base: string | null; got: string; fields?: string[] };
const known = new Map(
  (read('node20-ada2.9.2-mismatches.json') as Known[]).map((k) => [id(k), k.got === 'THROW' ? ['(parse)'] : k.fields ?? []]),
);

function id(c: { input: string; base: string | null }): string {
  return JSON.stringify([c.input, c.base]);
}

function parse(c: Case): URL | null {
  try {
    return new URL(c.input, c.base ?? undefined);
  } catch {
    return null;
  }
}

/** Attributes that differ from the expectation; ['(parse)'] if it parsed when it should not, or the reverse. */
function mismatches(c: Case): string[] {
  const u = parse(c);
  if (c.failure) return u ? ['(parse)'] : [];
  if (!u) return ['(parse)'];
  return ATTRS.filter((a) => c[a] !== undefined && u[a] !== c[a]);
}

// A readable, unique-enough test name; JSON.stringify shows control characters.
const name = (c: Case, i: number): string => `#${i} ${JSON.stringify(c.input).slice(0, 60)} base=${JSON.stringify(c.base)?.slice(0, 40)}`;
const indexed = cases.map((c, i) => ({ c, i, n: name(c, i) }));

describe('WPT urltestdata on the runtime URL parser', () => {
  it('has the expected shape', () => {
    expect(cases).toHaveLength(891);
    expect(known.size).toBe(15);
    expect(cases.filter((c) => known.has(id(c)))).toHaveLength(15);
  });

  it.each(indexed.filter(({ c }) => !known.has(id(c))))('$n', ({ c }) => {
    expect(mismatches(c)).toEqual([]);
  });

  it.each(indexed.filter(({ c }) => known.has(id(c))))('known Node 20 mismatch $n', ({ c }) => {
    expect(mismatches(c)).toEqual(known.get(id(c)));
  });
});

describe('resolveHref over the WPT success cases that have a base', () => {
  const ok = indexed.filter(({ c }) => !c.failure && c.base !== null && !known.has(id(c)));

  it.each(ok)('$n', ({ c }) => {
    const href = c.href!;
    const hash = href.indexOf('#');
    expect(resolveHref(c.input, c.base!)?.href).toBe(hash < 0 ? href : href.slice(0, hash));
  });

  it('returns null for the failure cases', () => {
    for (const c of cases.filter((x) => x.failure && x.base !== null)) {
      expect(resolveHref(c.input, c.base!), id(c)).toBeNull();
    }
  });
});
