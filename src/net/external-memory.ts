import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A crawl's bodies are memory outside V8's heap (a Buffer's bytes, a page's text as one big
 * string), freed only when V8 collects the small objects that hold them. Most are promoted to
 * the old generation before their page is done, and V8 collects the old generation for external
 * memory only when it has grown 64 MB past its level after the last full collection: on the
 * replay web that garbage was 20-45 MB of the peak, on the hostile web (bodies cut at max-bytes,
 * decompression bombs) more. So after each page the crawl asks whether external memory grew by
 * GROWTH since it was lowest, and collects then.
 */
export const GROWTH = 16 * 1024 * 1024;

export class ExternalMemory {
  private low: number;

  constructor(
    private readonly growth = GROWTH,
    private readonly collect: () => void = fullCollection(),
    private readonly external: () => number = () => v8.getHeapStatistics().external_memory,
  ) {
    this.low = external();
  }

  /** Collect when external memory stands `growth` above its lowest since the last collection; true when it did. */
  check(): boolean {
    const now = this.external();
    if (now < this.low) this.low = now;
    if (now - this.low < this.growth) return false;
    this.collect();
    this.low = this.external();
    return true;
  }
}

let gc: (() => void) | null = null;

/**
 * V8's full collection, as `--expose-gc` gives it (the flag set at run time applies to contexts
 * made after it). About 20 ms on a crawl's heap.
 */
function fullCollection(): () => void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  return gc;
}
