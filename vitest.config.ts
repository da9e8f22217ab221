import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'ui/**/*.test.tsx'],
    // Integration tests start real servers and child processes; a slow shared machine needs room.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // In CI a JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: process.env.VITEST_JSON_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON_REPORT ? { json: process.env.VITEST_JSON_REPORT } : undefined,
  },
});
