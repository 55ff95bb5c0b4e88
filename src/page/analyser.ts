import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { AnalyseJob, FinalPage, Unparsed } from './analyse.js';

/** Runs page analysis (analyse.ts) for the crawl: on this thread, or on worker threads. */
export interface Analyser {
  analyse(job: AnalyseJob): Promise<FinalPage | Unparsed>;
  close(): Promise<void>;
}

/**
 * Parsing is most of a page's CPU time. With several pages in flight and cores to spare it runs
 * on worker threads, so fetching and the database (this thread) overlap with parsing. A worker
 * costs about 25 MB of resident memory (its own heap and parser); on the 2-core benchmark
 * machine one gave 25 % more pages/s for 40 MB more, which breaks the 150 MB budget of a
 * million-link crawl, so workers start at 4 cores: one per core beyond two, at most one per
 * concurrent page. The parser is loaded only where it runs.
 */
export async function createAnalyser(concurrency: number, cores = availableParallelism()): Promise<Analyser> {
  const threads = cores >= 4 ? Math.min(concurrency, cores - 2) : 0;
  if (threads >= 1) return new WorkerAnalyser(threads);
  const { analyseJob } = await import('./analyse.js');
  return { analyse: async (job) => analyseJob(job), close: async () => undefined };
}

interface Reply {
  id: number;
  result?: FinalPage | Unparsed;
  error?: string;
}

class WorkerAnalyser implements Analyser {
  private workers: { worker: Worker; busy: number }[] = [];
  private pending = new Map<number, { resolve: (r: FinalPage | Unparsed) => void; reject: (e: Error) => void; slot: number }>();
  private nextId = 0;
  private broken: Error | null = null;

  constructor(threads: number) {
    for (let i = 0; i < threads; i++) {
      // A small young generation: a page's garbage dies young, and larger semi-spaces only add
      // resident memory.
      const worker = new Worker(new URL('./analyse-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 6 } });
      worker.on('message', (m: Reply) => this.settle(m));
      worker.on('error', (err) => this.fail(new Error(`page analysis thread failed: ${err.message}`)));
      worker.on('exit', (code) => this.fail(new Error(`page analysis thread exited (code ${code})`)));
      this.workers.push({ worker, busy: 0 });
    }
  }

  analyse(job: AnalyseJob): Promise<FinalPage | Unparsed> {
    if (this.broken) return Promise.reject(this.broken);
    let slot = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.workers[i]!.busy < this.workers[slot]!.busy) slot = i;
    const w = this.workers[slot]!;
    const id = this.nextId++;
    // A copy is handed over (transferred), so the caller's body stays readable.
    const bytes = new Uint8Array(job.bytes); // (Buffer#slice would be a view)
    return new Promise<FinalPage | Unparsed>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, slot });
      w.busy++;
      w.worker.postMessage({ id, job: { ...job, bytes } }, [bytes.buffer as ArrayBuffer]);
    });
  }

  private settle(m: Reply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    this.workers[p.slot]!.busy--;
    if (m.result) p.resolve(m.result);
    else p.reject(new Error(m.error ?? 'page analysis failed'));
  }

  private fail(err: Error): void {
    if (this.broken) return;
    this.broken = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  async close(): Promise<void> {
    this.broken ??= new Error('page analysis closed');
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}
