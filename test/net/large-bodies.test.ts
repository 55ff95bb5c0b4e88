// One large body at a time (net/large-bodies.ts) and the collection of bodies' garbage
// (net/external-memory.ts); httpGet's use of the turn is in http.test.ts.
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ExternalMemory } from '../../src/net/external-memory.js';
import { LargeBodies } from '../../src/net/large-bodies.js';

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  await new Promise((r) => setTimeout(r, 20));
  return done;
};

describe('LargeBodies', () => {
  it('gives the turn to one claim at a time, in the order they asked', async () => {
    const bodies = new LargeBodies(10);
    const [a, b, c] = [bodies.claim(), bodies.claim(), bodies.claim()];
    const never = new AbortController().signal;
    await a.take(never);
    await a.take(never); // held: asking again is free
    const order: string[] = [];
    const pb = b.take(never).then(() => order.push('b'));
    const pc = c.take(never).then(() => order.push('c'));
    expect(await settled(pb)).toBe(false);
    expect(bodies.queued).toBe(2);
    a.done();
    a.done(); // once
    await pb;
    expect(await settled(pc)).toBe(false);
    b.done();
    await pc;
    expect(order).toEqual(['b', 'c']);
    c.done();
    expect(bodies.queued).toBe(0);
  });

  it('a claim whose signal ends while it waits leaves the queue and never holds the turn', async () => {
    const bodies = new LargeBodies(10);
    const a = bodies.claim();
    const b = bodies.claim();
    await a.take(new AbortController().signal);
    const stop = new AbortController();
    const pb = b.take(stop.signal);
    stop.abort(new Error('page deadline'));
    await expect(pb).rejects.toThrow('page deadline');
    expect(b.held).toBe(false);
    expect(bodies.queued).toBe(0);
    b.done(); // not held: gives nothing back
    a.done();
    const c = bodies.claim();
    expect(await settled(c.take(new AbortController().signal))).toBe(true);
  });
});

describe('ExternalMemory', () => {
  it('collects once external memory stands the growth above its lowest, and measures from there again', () => {
    let external = 100;
    let collections = 0;
    const m = new ExternalMemory(50, () => {
      collections++;
      external = 120; // what stays alive
    }, () => external);
    external = 80; // lower than at the start: the growth counts from here
    expect(m.check()).toBe(false);
    external = 129;
    expect(m.check()).toBe(false);
    external = 130;
    expect(m.check()).toBe(true);
    expect(collections).toBe(1);
    external = 169;
    expect(m.check()).toBe(false);
    external = 170;
    expect(m.check()).toBe(true);
    expect(collections).toBe(2);
  });

  it('its default collection frees Buffers no one holds, which V8 left for later', async () => {
    const m = new ExternalMemory(8 * 2 ** 20);
    let held: Buffer[] | null = Array.from({ length: 20 }, () => Buffer.alloc(2 ** 20, 1));
    const full = v8.getHeapStatistics().external_memory;
    expect(held.length).toBe(20);
    held = null;
    expect(m.check()).toBe(true);
    // V8 sweeps the freed buffers' memory on a helper thread, just after the collection. In CI,
    // beside other test files, one collection in some runs freed none of them: collect again
    // (the same default collection, growth 0) while waiting.
    for (let i = 0; i < 50 && v8.getHeapStatistics().external_memory > full - 15 * 2 ** 20; i++) {
      await new Promise((r) => setTimeout(r, 20));
      if (i % 10 === 9) new ExternalMemory(0).check();
    }
    expect(v8.getHeapStatistics().external_memory).toBeLessThan(full - 15 * 2 ** 20);
  });
});
