import type { CuePrior, CueStats } from './model.js';

/**
 * The cue prior as a file (data/cue-prior.json, shipped with beebot): the mean new external URLs
 * per page and, per cue, [pages, new external URLs]. Cues sorted, so a rebuilt file diffs by what
 * changed. Pure: text in, prior out; a file that is not one is an error naming what is wrong.
 */
export interface CuePriorFile {
  about: string;
  mean: number;
  cues: Record<string, [number, number]>;
}

export function priorToFile(prior: CuePrior, about: string): CuePriorFile {
  const cues: Record<string, [number, number]> = {};
  for (const cue of [...prior.cues.keys()].sort()) {
    const s = prior.cues.get(cue)!;
    cues[cue] = [s.n, s.sum];
  }
  return { about, mean: prior.mean, cues };
}

export function priorFromFile(text: string): CuePrior {
  const f = JSON.parse(text) as Partial<CuePriorFile>;
  if (typeof f.mean !== 'number' || !(f.mean >= 0) || typeof f.cues !== 'object' || f.cues === null) throw new Error('not a cue prior (no mean or cues)');
  const cues = new Map<string, CueStats>();
  for (const [cue, v] of Object.entries(f.cues)) {
    if (!Array.isArray(v) || v.length !== 2 || !v.every((x) => typeof x === 'number' && x >= 0)) throw new Error(`not a cue prior (cue ${JSON.stringify(cue)})`);
    cues.set(cue, { n: v[0], sum: v[1] });
  }
  return { mean: f.mean, cues };
}
