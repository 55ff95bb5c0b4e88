/**
 * Summaries of a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time,
 * and self time by area (beebot's files, each package, Node internals, SQLite calls, GC, idle).
 * Pure; the shell at the bottom prints them: `node dist/bench/cpu-profile.js file.cpuprofile [n]`.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    /** Samples per source line (1-based) of this node's function. */
    positionTicks?: { line: number; ticks: number }[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfRow {
  name: string;
  where: string;
  area: string;
  ms: number;
  share: number;
}

/** Where a frame's code lives, coarse enough to tell what to optimize. */
export function areaOf(functionName: string, url: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'VM / native (unattributed)';
    // Native functions have no script: better-sqlite3's statement methods are SQLite itself.
    if (['run', 'get', 'all', 'iterate', 'exec', 'prepare', 'raw', 'pluck'].includes(functionName)) return 'SQLite (native statement calls)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const own = /\/dist\/(src\/.+|bench\/.+|scripts\/.+)\.js$/.exec(url);
  if (own) return `beebot ${own[1]}`;
  return url;
}

function where(url: string, line: number): string {
  if (url === '') return '(native)';
  const short = url.replace(/^file:\/\/.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/');
  return `${short}:${line + 1}`;
}

/** Self time per frame (function + location), largest first. */
export function selfTimes(p: CpuProfile): SelfRow[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const ms = new Map<string, SelfRow>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName}|${f.url}|${f.lineNumber}`;
    const row = ms.get(key) ?? { name: f.functionName || '(anonymous)', where: where(f.url, f.lineNumber), area: areaOf(f.functionName, f.url), ms: 0, share: 0 };
    row.ms += dt;
    ms.set(key, row);
  });
  return [...ms.values()].map((r) => ({ ...r, share: r.ms / total })).sort((a, b) => b.ms - a.ms);
}

/** Self time per area, largest first. */
export function areaTimes(rows: SelfRow[]): { area: string; ms: number; share: number }[] {
  const by = new Map<string, { area: string; ms: number; share: number }>();
  for (const r of rows) {
    const a = by.get(r.area) ?? { area: r.area, ms: 0, share: 0 };
    a.ms += r.ms;
    a.share += r.share;
    by.set(r.area, a);
  }
  return [...by.values()].sort((a, b) => b.ms - a.ms);
}

/**
 * The hottest source lines of beebot's own files (dist/src): with SQLite run inside the calling
 * frame, this is what tells which statement or loop of commit.js costs the time.
 */
export function hotLines(p: CpuProfile, n: number): { where: string; share: number }[] {
  const ticks = new Map<string, number>();
  let total = 0;
  for (const node of p.nodes) {
    for (const t of node.positionTicks ?? []) {
      total += t.ticks;
      const own = /\/dist\/(src\/.+\.js)$/.exec(node.callFrame.url);
      if (own) ticks.set(`${own[1]}:${t.line}`, (ticks.get(`${own[1]}:${t.line}`) ?? 0) + t.ticks);
    }
  }
  return [...ticks].map(([where, k]) => ({ where, share: k / total })).sort((a, b) => b.share - a.share).slice(0, n);
}

export function formatProfile(rows: SelfRow[], n: number): string[] {
  const pct = (x: number) => `${(100 * x).toFixed(1).padStart(5)}%`;
  return [
    `top ${n} self time (busy = not idle):`,
    ...rows.filter((r) => r.area !== 'idle').slice(0, n).map((r) => `  ${pct(r.share)} ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}  (${r.where})`),
    'self time by area:',
    ...areaTimes(rows).slice(0, 14).map((a) => `  ${pct(a.share)} ${a.ms.toFixed(0).padStart(7)} ms  ${a.area}`),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node dist/bench/cpu-profile.js <file.cpuprofile> [top]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const n = Number(process.argv[3] ?? 10);
  console.log(formatProfile(selfTimes(profile), n).join('\n'));
  console.log('hottest lines of beebot (dist/src, lines of the compiled .js):');
  for (const l of hotLines(profile, n)) console.log(`  ${(100 * l.share).toFixed(1).padStart(5)}%  ${l.where}`);
}
