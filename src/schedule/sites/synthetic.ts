import { mulberry32 } from './random.js';
import { gammaSample } from './thompson.js';

export type SyntheticKind = 'university' | 'institute' | 'mixed';

export interface SyntheticSite {
  name: string;
  group: 'university' | 'institute';
  /** Links found on each page, pages in breadth-first order. */
  rewards: number[];
}

/** The article's sample table: pages and external links per site (max level 5, Nov 2011). */
export const SAMPLE_SITES = [
  { name: 'binran.ru', group: 'institute', pages: 1298, links: 29 },
  { name: 'zin.ru', group: 'institute', pages: 1100, links: 69 },
  { name: 'orientalstudies.ru', group: 'institute', pages: 2411, links: 48 },
  { name: 'pushkinskijdom.ru', group: 'institute', pages: 39292, links: 3192 },
  { name: 'iling.spb.ru', group: 'institute', pages: 3523, links: 129 },
  { name: 'pgups.ru', group: 'university', pages: 431, links: 19 },
  { name: 'rshu.ru', group: 'university', pages: 1766, links: 409 },
  { name: 'spbstu.ru', group: 'university', pages: 1471, links: 214 },
  { name: 'spbu.ru', group: 'university', pages: 12935, links: 903 },
  { name: 'finec.ru', group: 'university', pages: 7253, links: 1048 },
] as const;

/** How a site's links are laid over its breadth-first pages (the intensity of page j). */
export interface Shape {
  /** Yield decays with depth as exp(-j / (depth · pages)). */
  depth: number;
  /** Pages after the start page that are navigation only (no links): uniform in [0, nav]. */
  nav: number;
  /** The start page's intensity relative to the first content page: uniform in [0, start]. */
  start: number;
  /** Gamma shape of each content page's share: small = most pages empty, a few with many. */
  clump: number;
}

/**
 * Calibrated (scripts/bench-policies.ts prints the result) so that at N = 2000 with the default n = 10, m = 1
 * R1/R2/R3 order as in the article. Each number encodes the article's explanation:
 * universities are deep: 0-60 navigation pages before the content, so many show nothing in
 * their first n pages (R2 never returns to them), and their links are spread evenly (clump 2);
 * institutes are flat: content and a linking start page right away, links clumped on few
 * pages (clump 0.2), so the rich ones show early and R2's greed pays.
 */
export const SHAPES: Record<SyntheticSite['group'], Shape> = {
  university: { depth: 0.1, nav: 60, start: 3, clump: 2 },
  institute: { depth: 0.12, nav: 0, start: 5, clump: 0.2 },
};

/** One site: exactly `links` links over `pages` pages, each link on a page drawn by intensity. */
export function synthesizeSite(pages: number, links: number, shape: Shape, random: () => number): number[] {
  const nav = Math.floor(random() * (shape.nav + 1));
  const start = shape.start * random();
  const scale = Math.max(1, shape.depth * pages);
  const cdf = new Float64Array(pages);
  let acc = 0;
  for (let j = 0; j < pages; j++) {
    // the start page is a list of links whatever the site's shape: noisy but not clumpy
    const level = j === 0 ? start * gammaSample(1, random) : j <= nav ? 0 : gammaSample(shape.clump, random);
    cdf[j] = acc += level * Math.exp(-j / scale);
  }
  const rewards = new Array<number>(pages).fill(0);
  if (acc === 0) return rewards;
  for (let k = 0; k < links; k++) {
    const u = random() * acc;
    let lo = 0;
    let hi = pages - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    rewards[lo]!++;
  }
  return rewards;
}

/** Independent stream per (kind, seed, site) so one site's shape does not shift the others. */
function siteRandom(kind: SyntheticKind, seed: number, i: number): () => number {
  const k = kind === 'university' ? 1 : kind === 'institute' ? 2 : 3;
  return mulberry32(Math.imul(seed + 0x632be5ab, 0x9e3779b1) ^ Math.imul(k * 16 + i + 1, 0x85ebca77));
}

/**
 * Ten sites with the sample table's sizes. 'mixed' is the table itself (its 5 institutes and
 * 5 universities). 'institute' / 'university' take that group's five rows plus a twin of each
 * (name + '~2') whose pages and links are both scaled by a seeded factor in [1/2, 2]
 * (log-uniform): the set keeps the table's range of sizes and link densities. Every site's
 * rewards sum to its (scaled) link count over exactly its (scaled) page count.
 */
export function synthetic(kind: SyntheticKind, seed: number, shapes: Record<SyntheticSite['group'], Shape> = SHAPES): SyntheticSite[] {
  const rows = kind === 'mixed' ? SAMPLE_SITES : SAMPLE_SITES.filter((s) => s.group === kind);
  const specs = kind === 'mixed' ? rows.map((r) => ({ ...r, twin: false })) : [false, true].flatMap((twin) => rows.map((r) => ({ ...r, twin })));
  return specs.map((s, i) => {
    const random = siteRandom(kind, seed, i);
    const factor = s.twin ? Math.pow(2, 2 * random() - 1) : 1;
    const pages = Math.max(1, Math.round(s.pages * factor));
    const links = Math.round(s.links * factor);
    return { name: s.twin ? `${s.name}~2` : s.name, group: s.group, rewards: synthesizeSite(pages, links, shapes[s.group], random) };
  });
}
