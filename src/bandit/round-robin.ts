import type { Policy } from './policy.js';

/**
 * The article's "quantum" scheduler: q pages of each site in turn (sites in id order), so
 * every site gets partly crawled before the budget runs out. A site that is not open loses
 * the rest of its turn. Derived from the history alone, so a resumed crawl continues the turn.
 */
export function roundRobin(quantum: number): Policy {
  return ({ arms, history }) => {
    const open = arms.filter((a) => a.open).sort((a, b) => a.id - b.id);
    if (open.length === 0) return null;
    const last = history[history.length - 1];
    if (last === undefined) return open[0]!.id;
    let run = 0;
    for (let i = history.length - 1; i >= 0 && history[i] === last; i--) run++;
    const current = open.find((a) => a.id === last);
    if (current && run % quantum !== 0) return current.id;
    return (open.find((a) => a.id > last) ?? open[0]!).id;
  };
}
