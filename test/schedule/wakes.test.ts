// The heap of times at which page choice looks at a site again (src/schedule/wakes.ts).
import { describe, expect, it } from 'vitest';
import { Wakes } from '../../src/schedule/wakes.js';

describe('wakes', () => {
  it('gives the ids due by a time, soonest first, each taken out once', () => {
    const w = new Wakes();
    const times = [50, 10, 40, 10, 30, 20, 60, 5];
    times.forEach((at, id) => w.add(at, id));
    expect(w.due(4)).toEqual([]);
    expect(w.due(10).sort()).toEqual([1, 3, 7]);
    expect(w.due(40)).toEqual([5, 4, 2]);
    expect(w.due(40)).toEqual([]);
    w.add(1, 9);
    expect(w.due(100)).toEqual([9, 0, 6]);
    w.add(7, 1);
    w.clear();
    expect(w.due(100)).toEqual([]);
  });
});
