/**
 * The words of a text as a topic-focused crawl counts them: lowercased letters-and-digits words
 * of two or more characters, English stop words dropped, a plural "-s" folded ("expressions"
 * and "expression" are one term; a light stemmer, so that a topic given as two or three words
 * still meets the pages that inflect them). Pure.
 */
const WORD = /[\p{L}][\p{L}\p{N}]+/gu;

// The commonest English function words (a short list: TF-IDF weighs the rest down anyway).
const STOP = new Set(
  ('the of and to in is it that for on as with by be this are or an at from was which you can not ' +
    'if but all will have has had its their they we he she his her them there these those so no do does ' +
    'one more other than then when what where who how also into may such use used using see any each ' +
    'only new about our your would should could been were being over out up some most very').split(' '),
);

export function stem(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 4 && /(?:ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of text.toLowerCase().match(WORD) ?? []) if (!STOP.has(w)) out.push(stem(w));
  return out;
}

/** Term counts of a text, the MAX_TERMS most frequent kept (what a page is stored and compared as). */
export const MAX_TERMS = 200;

export function termCounts(text: string, max = MAX_TERMS): Record<string, number> {
  const counts = new Map<string, number>();
  for (const t of terms(text)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, max);
  return Object.fromEntries(top);
}
