/**
 * The value of content, and how much of a page a re-check found changed (pure). The S.C.E.N.T.
 * article values content by the logarithm of its size: twice the text is not twice the worth.
 * `linear` and `binary` (changed or not) are there to measure that choice against.
 */
export type ValueFunction = 'log' | 'linear' | 'binary';
export const valueFunctions: readonly ValueFunction[] = ['log', 'linear', 'binary'];

export function contentValue(chars: number, f: ValueFunction): number {
  if (!(chars > 0)) return 0;
  if (f === 'log') return Math.log2(1 + chars);
  return f === 'linear' ? chars : 1;
}

/** A link added or removed counts as this many characters of content: about a URL's length. */
export const LINK_CHARS = 40;

/**
 * Characters of content a re-read found changed: the change in text size plus LINK_CHARS per
 * link added or gone. Only a fingerprint is kept, not the text, so an edit that keeps the size and
 * the links counts as 1 character; a page read before fingerprints were kept (`oldSize` null) is
 * judged by its links alone.
 */
export function changedChars(
  oldPrint: { fingerprint: number | null; textSize: number | null }, newPrint: { fingerprint: number; textSize: number } | null,
  linksAdded: number, linksGone: number,
): number {
  const links = LINK_CHARS * (linksAdded + linksGone);
  if (!newPrint) return links;
  if (oldPrint.fingerprint === null || oldPrint.textSize === null) return links;
  if (oldPrint.fingerprint === newPrint.fingerprint) return 0;
  return Math.max(1, Math.abs(newPrint.textSize - oldPrint.textSize) + links);
}
