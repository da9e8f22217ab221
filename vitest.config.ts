import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'ui/**/*.test.tsx'],
    // Integration tests start real servers, child processes and Chromium; a slow shared 2-core
    // machine running two browser files at once needs room (a test with fixed waits of its own,
    // an Undo window or a poll interval, sets a longer one beside it).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time at least. Vitest's default is one fewer than the cores, so a 2-core
    // machine ran one file at a time, though most files wait on child processes, servers, mail
    // servers and Chromium rather than compute: two at once took the suite from 17.7 to 11.5
    // minutes there, with every test passing (docs/decisions.md, "CI's time").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // In CI a JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: process.env.VITEST_JSON_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON_REPORT ? { json: process.env.VITEST_JSON_REPORT } : undefined,
  },
});
