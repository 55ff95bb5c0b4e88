/**
 * A count and its noun, as every message writes one: "1 page", "2 pages", "11,224 rows" (the
 * one plural rule; thousands grouped so that large counts read at a glance).
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
