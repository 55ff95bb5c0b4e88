import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files spend most of their time waiting on the CLI processes and servers they start, so
    // two run at once even on 2 cores (vitest's own default there is one): the suite took 1,033 s
    // one file at a time and 632 s two at a time on the 2-core machine, all passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The JSON report lets .ci/run print the plain "N passed, N failed" line CI reads.
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
  },
});
