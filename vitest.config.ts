import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers and child processes; a slow shared machine needs room.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
