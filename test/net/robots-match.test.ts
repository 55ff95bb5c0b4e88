// robots.txt path matching (src/net/robots-match.ts): RFC 9309 semantics, the same verdicts as
// robots-parser's own matcher, and bounded work on a pathological file.
import robotsParser from 'robots-parser';
import { describe, expect, it } from 'vitest';
import { compileRules, decide, type RobotsRule } from '../../src/net/robots-match.js';
import { parseRobotsTxt } from '../../src/net/robots.js';

const rule = (line: string): RobotsRule => {
  const [kind, pattern] = line.split(': ') as [string, string];
  return { allow: kind === 'Allow', pattern };
};
const verdict = (lines: string[], path: string) => decide(compileRules(lines.map(rule)), path);

describe('decide', () => {
  it('no matching rule: no verdict', () => {
    expect(verdict(['Disallow: /a'], '/b')).toBeNull();
    expect(verdict([], '/')).toBeNull();
  });

  it('a pattern is a prefix of the path', () => {
    expect(verdict(['Disallow: /fish'], '/fish.html')).toBe(false);
    expect(verdict(['Disallow: /fish'], '/Fish')).toBeNull();
    expect(verdict(['Disallow: /fish/'], '/fish')).toBeNull();
  });

  it('the longest matching pattern wins, whatever the order in the file', () => {
    expect(verdict(['Allow: /p', 'Disallow: /'], '/page')).toBe(true);
    expect(verdict(['Disallow: /', 'Allow: /p'], '/page')).toBe(true);
    expect(verdict(['Allow: /folder', 'Disallow: /folder/x'], '/folder/x.html')).toBe(false);
  });

  it('Allow wins a tie in length', () => {
    expect(verdict(['Disallow: /page', 'Allow: /page'], '/page')).toBe(true);
    expect(verdict(['Disallow: /*.htm', 'Allow: /page.'], '/page.htm')).toBe(true);
  });

  it('`*` matches any run, empty included', () => {
    expect(verdict(['Disallow: /*.php'], '/index.php')).toBe(false);
    expect(verdict(['Disallow: /*.php'], '/.php')).toBe(false);
    expect(verdict(['Disallow: /*.php'], '/a/b.php5?x')).toBe(false);
    expect(verdict(['Disallow: /a*b*c'], '/a-c-b')).toBeNull();
    expect(verdict(['Disallow: /a**b'], '/axb')).toBe(false);
  });

  it('a final `$` anchors the end; elsewhere it is a plain character', () => {
    expect(verdict(['Disallow: /*.php$'], '/index.php')).toBe(false);
    expect(verdict(['Disallow: /*.php$'], '/index.php?x=1')).toBeNull();
    expect(verdict(['Disallow: /a$'], '/a')).toBe(false);
    expect(verdict(['Disallow: /a$'], '/ab')).toBeNull();
    expect(verdict(['Disallow: /$x'], '/$x1')).toBe(false);
    // The anchored tail must not overlap the pieces before it.
    expect(verdict(['Disallow: /ab*ba$'], '/aba')).toBeNull();
    expect(verdict(['Disallow: /ab*ba$'], '/abba')).toBe(false);
  });

  it('agrees with robots-parser on random patterns and paths', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = (alphabet: string, max: number) => Array.from({ length: rnd(max) }, () => alphabet[rnd(alphabet.length)]).join('');
    for (let i = 0; i < 3000; i++) {
      const pattern = `/${word('ab*$', 7)}`;
      const path = `/${word('ab$', 9)}`;
      const ours = verdict([`Disallow: ${pattern}`], path) === false;
      const theirs = robotsParser('http://x.test/robots.txt', `User-agent: *\nDisallow: ${pattern}\n`).isAllowed(`http://x.test${path}`) === false;
      expect(ours, `${pattern} on ${path}`).toBe(theirs);
    }
  });
});

describe('a pathological robots.txt', () => {
  // 2,392 rules of `/*a*a*…*b` filling 500 KiB, against a 1,900-character path of a's: a matcher
  // that tracks every position per pattern character does about 10^9 steps per URL.
  const rules = Array.from({ length: 2392 }, (_, i) => `Disallow: /${'*a'.repeat(100 + (i % 7))}*b\n`).join('');
  const file = Buffer.from(`User-agent: *\n${rules}`);

  it('is compiled once and answers 20 URLs in well under a second', () => {
    const robots = parseRobotsTxt('http://slow.test', file);
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) expect(robots.isAllowed(`http://slow.test/${'a'.repeat(1900 + i)}`)).toBe(true);
    expect(robots.isAllowed(`http://slow.test/${'a'.repeat(1900)}b`)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
