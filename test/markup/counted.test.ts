// Counts as every message writes them (pure): the plural rule and the fetched/HTML vocabulary.
import { describe, expect, it } from 'vitest';
import { counted, grouped, htmlOfFetched, otherFetched } from '../../src/markup/counted.js';

describe('counted', () => {
  it('is singular for exactly one, plural otherwise (zero too), with a plural of its own when given', () => {
    expect([counted(0, 'page'), counted(1, 'page'), counted(2, 'page')]).toEqual(['0 pages', '1 page', '2 pages']);
    expect([counted(1, 'child', 'children'), counted(3, 'child', 'children')]).toEqual(['1 child', '3 children']);
  });

  it('groups thousands', () => {
    expect([counted(11_224, 'row'), counted(1_234_567, 'link')]).toEqual(['11,224 rows', '1,234,567 links']);
  });
});

describe('grouped', () => {
  it('groups thousands with commas, whatever the locale of the machine', () => {
    expect([0, 999, 1_000, 11_224, 1_234_567].map(grouped)).toEqual(['0', '999', '1,000', '11,224', '1,234,567']);
  });
});

describe('otherFetched', () => {
  it('names the pulls that gave no HTML page, or nothing when every one did', () => {
    expect(otherFetched(292, 300)).toBe('8 others: not HTML, errors or redirects');
    expect(otherFetched(2, 3)).toBe('1 other: not HTML, errors or redirects');
    expect(otherFetched(3, 3)).toBe('');
  });
});

describe('htmlOfFetched', () => {
  it('says how many of the fetched are HTML pages, the others in brackets after the notes', () => {
    expect(htmlOfFetched(292, 300, 'are indexed')).toBe('292 HTML pages of the 300 fetched are indexed (8 others: not HTML, errors or redirects)');
    expect(htmlOfFetched(1, 3, 'x', ['a note'])).toBe('1 HTML page of the 3 fetched x (a note; 2 others: not HTML, errors or redirects)');
    expect(htmlOfFetched(1_000, 2_000)).toBe('1,000 HTML pages of the 2,000 fetched (1,000 others: not HTML, errors or redirects)');
  });

  it('has no brackets when every pull was an HTML page and there is no note', () => {
    expect(htmlOfFetched(5, 5)).toBe('5 HTML pages of the 5 fetched');
    expect(htmlOfFetched(5, 5, '', ['a', 'b'])).toBe('5 HTML pages of the 5 fetched (a; b)');
  });
});
