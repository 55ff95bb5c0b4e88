/** First Ctrl-C (or SIGTERM): stop taking pages, abandon in-flight ones, commit, summarise. Second: quit now. */
export async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  const onSignal = () => {
    if (ctl.signal.aborted) process.exit(130);
    process.stderr.write('\nstopping: pages in flight are dropped and fetched again on resume (Ctrl-C again to quit at once)\n');
    ctl.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await fn(ctl.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
