/** The first `max` UTF-16 units of `s`, one fewer when the last would be half of a surrogate pair (an emoji cut in two shows as U+FFFD). */
export function sliceWhole(s: string, max: number): string {
  const out = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(out) ? out.slice(0, -1) : out;
}
