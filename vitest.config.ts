import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print the plain "N passed, N failed" line CI reads.
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
  },
});
