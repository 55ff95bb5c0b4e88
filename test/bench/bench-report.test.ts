import { describe, expect, it } from 'vitest';
import { summarize, targets, type Run } from '../../bench/report.js';

/** A run of the order stage: `cpu` CPU seconds for 1,500 pages, `rss` MB at its peak. */
const run = (contender: 'bfs' | 'default', rep: number, cpu: number, rss: number): Run => ({
  contender, job: 'order 0', rep, pages: 1500, external: 40000, seconds: 10, cpuSeconds: cpu, peakRssMb: rss, dbBytes: null,
  requests: 1520, bodyBytes: 0, connections: 20, serverCpuSeconds: 1, machineCpuSeconds: cpu + 1,
});

describe('bench targets: what the default order costs against breadth-first', () => {
  // The machine slows down between reps: each pair's ratio differs from the medians' ratio.
  const runs = [run('bfs', 0, 10, 120), run('default', 0, 12, 130), run('bfs', 1, 12, 126), run('default', 1, 16.8, 134), run('bfs', 2, 11, 124), run('default', 2, 12.1, 140)];
  const line = (name: string) => targets(summarize(runs), null, [], runs).find((t) => t.name === name)!;

  it('gives the CPU per page as the ratio of the medians, with the pairs run together beside it', () => {
    const cpu = line("default order's CPU per page / --order bfs's, --delay 0");
    // medians 12.1 against 11 CPU s: 1.10; pairs 1.20, 1.40, 1.10
    expect(cpu).toEqual({ name: cpu.name, goal: '<= 1.10x', measured: '1.10x (pairs 1.10-1.40)', met: true });
    const slow = runs.map((r) => (r.contender === 'default' ? { ...r, cpuSeconds: r.cpuSeconds * 1.2 } : r));
    expect(targets(summarize(slow), null, [], slow).find((t) => t.name === cpu.name)).toMatchObject({ measured: '1.32x (pairs 1.32-1.68)', met: false });
  });

  it('gives peak memory against breadth-first, the goal within 10 %', () => {
    // medians 134 against 124 MB
    expect(line("default order's peak RSS / --order bfs's, --delay 0")).toMatchObject({ goal: '<= 1.10x', measured: '1.08x', met: true });
    const fat = runs.map((r) => (r.contender === 'default' ? { ...r, peakRssMb: r.peakRssMb * 1.1 } : r));
    expect(targets(summarize(fat), null, [], fat).find((t) => t.name.startsWith("default order's peak RSS"))).toMatchObject({ measured: '1.19x', met: false });
  });

  it('adds no order lines when the order stage did not run', () => {
    expect(targets([], null, []).filter((t) => t.name.startsWith("default order's"))).toEqual([]);
  });
});
