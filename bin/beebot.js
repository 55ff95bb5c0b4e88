#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=8 --no-allocation-site-pretenuring
// Semi-spaces of 8 MB instead of Node's 16: the crawl's garbage dies young either way, and the
// young generation's resident size drops by 16 MB at no measured cost in speed. One malloc arena
// (glibc reads MALLOC_ARENA_MAX only at start): each thread of V8's and libuv's pools got an arena
// of its own, whose freed pages stayed resident; one arena lowered a crawl's peak by ~17 MB.
// No allocation-site pretenuring: V8 decides for good, from where one scavenge happens to fall,
// to allocate an object literal of the page analysis (a link, say) in the old generation; the
// dead ones there then keep what they point to alive through every scavenge until a full
// collection, a page's text with them. A 30,000-site crawl peaked at 322-450 MB in 11 runs of 31
// that way, and at 207-242 MB in all 18 runs without it, for no more CPU (docs/benchmarks.md).
import { main, stdoutFailed } from '../dist/src/cli/main.js';

// A closed pipe ends quietly; any other write error on stdout is one line and exit 1.
process.stdout.on('error', stdoutFailed);
process.exitCode = await main(process.argv);
