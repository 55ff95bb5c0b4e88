// Where the time comes from: the real clock and the virtual one the changing web's tests run on.
import { describe, expect, it } from 'vitest';
import { realClock, VirtualClock } from '../../src/time/clock.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0);

describe('VirtualClock', () => {
  it('stands still until told: now() is the time it was set to', () => {
    const c = new VirtualClock(T0);
    expect([c.now(), c.now()]).toEqual([T0, T0]);
    c.advance(1_500);
    expect(c.now()).toBe(T0 + 1_500);
    c.set(T0 + 60_000);
    expect(c.now()).toBe(T0 + 60_000);
  });

  it('sleeping advances it at once by the time slept; a negative sleep leaves it', async () => {
    const c = new VirtualClock(T0);
    await c.sleep(7 * 24 * 3_600_000);
    expect(c.now()).toBe(T0 + 7 * 24 * 3_600_000);
    await c.sleep(-5);
    expect(c.now()).toBe(T0 + 7 * 24 * 3_600_000);
  });

  it('cannot go back, and says when from and to', () => {
    const c = new VirtualClock(T0);
    expect(() => c.set(T0 - 1)).toThrow('the virtual clock cannot go back (2026-01-05T08:59:59.999Z < 2026-01-05T09:00:00.000Z)');
    expect(() => c.advance(-1)).toThrow(/cannot go back/);
    expect(c.now()).toBe(T0);
    c.set(T0); // the same time is no step back
    expect(c.now()).toBe(T0);
  });

  it('a sleep on an aborted signal rejects with its reason and does not move the clock', async () => {
    const c = new VirtualClock(T0);
    const stop = new AbortController();
    const why = new Error('run ended');
    stop.abort(why);
    await expect(c.sleep(1_000, stop.signal)).rejects.toBe(why);
    expect(c.now()).toBe(T0);
    await c.sleep(1_000, new AbortController().signal);
    expect(c.now()).toBe(T0 + 1_000);
  });
});

describe('realClock', () => {
  it("reads the system's time", () => {
    const before = Date.now();
    const now = realClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('a sleep resolves after its time', async () => {
    const started = performance.now();
    await realClock.sleep(20);
    expect(performance.now() - started).toBeGreaterThanOrEqual(19);
  });

  it('a sleep rejects with the signal\'s reason: at once when already aborted, or when it aborts during the sleep', async () => {
    const done = new AbortController();
    done.abort(new Error('already over'));
    await expect(realClock.sleep(60_000, done.signal)).rejects.toThrow('already over');
    const stop = new AbortController();
    const sleeping = realClock.sleep(60_000, stop.signal);
    setTimeout(() => stop.abort(new Error('stopped')), 10);
    await expect(sleeping).rejects.toThrow('stopped');
  });
});
