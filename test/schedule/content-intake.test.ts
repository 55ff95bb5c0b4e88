import { describe, expect, it } from 'vitest';
import { takeContent, type ContentStore } from '../../src/schedule/content-intake.js';

interface Page {
  key: string;
  level: number;
}
/** A pull: the pulled page's key, and where it redirected in-site (or nowhere). */
interface Pull {
  page: string;
  to?: string;
}

/** A store in plain data: its pages by key, and the log of what the step told it, in order. */
class Pages implements ContentStore<Page, Pull> {
  pages = new Map<string, Page>();
  log: string[] = [];

  constructor(pages: Page[]) {
    for (const p of pages) this.pages.set(p.key, p);
  }

  target = (c: Pull, level: number) => {
    if (c.to === undefined) return undefined;
    const found = this.pages.get(c.to);
    if (found) return found;
    this.log.push(`new ${c.to} ${level}`);
    const p = { key: c.to, level };
    this.pages.set(p.key, p);
    return p;
  };
  levelOf = (_c: Pull, p: Page) => p.level;
  redirected = (c: Pull, p: Page) => void this.log.push(`redirect ${c.page}->${p.key}`);
  lower = (_c: Pull, p: Page, level: number) => {
    this.log.push(`lower ${p.key} ${level}`);
    p.level = level;
  };
  content = (c: Pull, p: Page | undefined, level: number) => void this.log.push(`content ${p?.key ?? c.page} ${level}`);
}

describe('takeContent, a pull at level 2', () => {
  it("no redirect: the content is the pulled page's own, at its level", () => {
    const s = new Pages([{ key: 'p', level: 2 }]);
    expect(takeContent(s, { page: 'p' }, 2)).toBe(2);
    expect(s.log).toEqual(['content p 2']);
  });

  it('a redirect to a new page: the target is stored at the pulled page level and holds the content', () => {
    const s = new Pages([{ key: 'p', level: 2 }]);
    expect(takeContent(s, { page: 'p', to: 't' }, 2)).toBe(2);
    expect(s.log).toEqual(['new t 2', 'redirect p->t', 'content t 2']);
  });

  it('a redirect to a page found deeper: it moves up, and holds the content at the nearer level', () => {
    const s = new Pages([{ key: 'p', level: 2 }, { key: 't', level: 5 }]);
    expect(takeContent(s, { page: 'p', to: 't' }, 2)).toBe(2);
    expect(s.log).toEqual(['redirect p->t', 'lower t 2', 'content t 2']);
  });

  it('a redirect to a page found nearer: it stays where it is, and so does its content', () => {
    const s = new Pages([{ key: 'p', level: 2 }, { key: 't', level: 1 }]);
    expect(takeContent(s, { page: 'p', to: 't' }, 2)).toBe(1);
    expect(s.log).toEqual(['redirect p->t', 'content t 1']);
  });
});
