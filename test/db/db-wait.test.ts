// The pure rules of a database that goes away: what counts as a lost connection, the pauses
// between reconnects, a dropped transaction run again whole, and a page deadline that does not
// count the time the process was blocked in database calls.
import { describe, expect, it } from 'vitest';
import { connectionLost, reconnectPause, retryWhole, transactionBroken, TransactionLost } from '../../src/db/lost-connection.js';
import { owedMs, PageDeadline } from '../../src/net/page-deadline.js';

describe('a lost connection', () => {
  it('is a broken connection (transaction status UNKNOWN) or the server going away, not a wrong statement', () => {
    expect(connectionLost(4, '')).toBe(true);
    expect(connectionLost(0, '57P01')).toBe(true); // terminating connection due to administrator command
    expect(connectionLost(0, '57P03')).toBe(true); // the database system is starting up
    expect(connectionLost(2, '08006')).toBe(true);
    expect(connectionLost(3, '23505')).toBe(false); // a unique violation
    expect(connectionLost(0, '42P01')).toBe(false); // no such table
    expect(transactionBroken('40P01')).toBe(true);
    expect(transactionBroken('23505')).toBe(false);
  });

  it('is tried again after 0.1 s, doubling up to 2 s', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(reconnectPause)).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
  });

  it('runs a dropped transaction again from its start; any other failure passes through', () => {
    let runs = 0;
    expect(retryWhole(() => (++runs < 3 ? (() => { throw new TransactionLost('gone'); })() : runs))).toBe(3);
    expect(() => retryWhole(() => { throw new Error('wrong'); })).toThrow('wrong');
    let forever = 0;
    expect(() => retryWhole(() => { forever++; throw new TransactionLost('gone'); })).toThrow(TransactionLost);
    expect(forever).toBe(20);
  });
});

describe('the page deadline', () => {
  it('owes its page the time blocked in the database since it last counted', () => {
    expect(owedMs(100, 100)).toBe(0);
    expect(owedMs(100, 2600.4)).toBe(2500);
  });

  it('passes after its own time when nothing waited, later by what was waited', async () => {
    const plain = new PageDeadline(50, () => 0);
    const t0 = performance.now();
    await new Promise((r) => plain.signal.addEventListener('abort', r));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);

    let waited = 0;
    const held = new PageDeadline(50, () => waited);
    waited = 200; // the database held the process 200 ms
    const t1 = performance.now();
    await new Promise((r) => held.signal.addEventListener('abort', r));
    expect(performance.now() - t1).toBeGreaterThanOrEqual(240);
    expect((held.signal.reason as DOMException).name).toBe('TimeoutError');

    const cleared = new PageDeadline(10, () => 0);
    cleared.clear();
    await new Promise((r) => setTimeout(r, 40));
    expect(cleared.signal.aborted).toBe(false);
  });
});
