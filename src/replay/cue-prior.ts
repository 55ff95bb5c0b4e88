import { linkCues, splitCues } from '../schedule/links/cues.js';
import type { CuePrior, CueStats } from '../schedule/links/model.js';
import { contentOf, type WebGraph } from './web-graph.js';

/**
 * The cue prior (schedule/links/model.ts CuePrior) of some sites' page graphs: each site read
 * breadth-first (level, then page order), every page's reward its external URLs new to the site,
 * learned under the cues of the first link that reaches it (the link a crawl would queue it by).
 * Pure; the sites given are the training sites, never the measured ones.
 */
export function cuePrior(web: WebGraph, kinds?: readonly string[]): CuePrior {
  const cues = new Map<string, CueStats>();
  let n = 0;
  let sum = 0;
  for (const site of web.sites) {
    const order = site.pages.map((_, i) => i).sort((a, b) => site.pages[a]!.level - site.pages[b]!.level || a - b);
    const via = new Map<number, string[]>();
    const seen = new Set<number>();
    for (const i of order) {
      const c = contentOf(site, i);
      const page = site.pages[c]!;
      for (const l of page.links) {
        if (!via.has(l.to)) via.set(l.to, l.cues ? splitCues(l.cues) : linkCues(site.pages[l.to]!.url, l.anchor));
      }
      if (site.pages[i]!.target !== undefined) continue;
      let reward = 0;
      for (const u of page.ext) if (!seen.has(u)) (seen.add(u), reward++);
      if (i === 0) continue; // no link leads to the start page
      n++;
      sum += reward;
      for (const cue of via.get(i) ?? []) {
        const s = cues.get(cue) ?? { n: 0, sum: 0 };
        s.n++;
        s.sum += reward;
        cues.set(cue, s);
      }
    }
  }
  // Kinds the model leaves out (link-value.ts drop) would only weigh the shipped file down.
  if (kinds) for (const cue of cues.keys()) if (!kinds.includes(cue.slice(0, cue.indexOf(':')))) cues.delete(cue);
  return { mean: n ? sum / n : 0, cues };
}
