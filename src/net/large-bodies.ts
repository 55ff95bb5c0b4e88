/**
 * One large body at a time across a crawl's concurrent fetches. A body's first `threshold` bytes,
 * read or decompressed, come freely; past them its page waits for the turn (its socket paused,
 * its page deadline running) and keeps it until the page is done. So the bodies held at once are
 * at most concurrency × threshold plus one page's (raw, decompressed, its text): a hostile web of
 * bodies cut at max-bytes and decompression bombs no longer piles them up side by side, and a
 * real web, where pages over a MiB are rare, hardly ever waits.
 */
export const LARGE_BODY = 1024 * 1024;

export class LargeBodies {
  private busy = false;
  private waiting: (() => void)[] = [];

  constructor(readonly threshold = LARGE_BODY) {}

  /** One page's (or file's) claim on the turn. */
  claim(): BodyTurn {
    return new BodyTurn(this);
  }

  /** @internal for BodyTurn */
  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = (): void => {
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const stop = (): void => {
        this.waiting.splice(this.waiting.indexOf(go), 1);
        reject(signal.reason);
      };
      this.waiting.push(go);
      signal.addEventListener('abort', stop, { once: true });
    });
  }

  /** @internal for BodyTurn: the turn passes to the longest waiting. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }

  /** Pages waiting for the turn (tests). */
  get queued(): number {
    return this.waiting.length;
  }
}

/** A page's turn: taken when its body grows large, given back once when the page is done or its request failed. */
export class BodyTurn {
  held = false;

  constructor(private bodies: LargeBodies) {}

  get threshold(): number {
    return this.bodies.threshold;
  }

  /** Wait for the turn (once: a page asks from one chain of calls); rejects with the signal's reason. */
  async take(signal: AbortSignal): Promise<void> {
    if (this.held) return;
    await this.bodies.acquire(signal);
    this.held = true;
  }

  done(): void {
    if (!this.held) return;
    this.held = false;
    this.bodies.release();
  }
}
