/** A page-analysis thread (see analyser.ts): analyseJob for each job posted to it. */
import { parentPort } from 'node:worker_threads';
import { analyseJob, type AnalyseJob } from './analyse.js';

parentPort!.on('message', ({ id, job }: { id: number; job: AnalyseJob }) => {
  try {
    parentPort!.postMessage({ id, result: analyseJob(job) });
  } catch (err) {
    parentPort!.postMessage({ id, error: (err as Error).message });
  }
});
