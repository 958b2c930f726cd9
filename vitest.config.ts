import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/invariants.ts'],
    globalSetup: ['test/setup/temp-root.ts'],
    testTimeout: 60_000,
    // Two test files at a time: Vitest's default, one worker fewer than the cores, runs them one by one
    // on a 2-core machine (there the suite took 826 s with one worker and 547 s with two).
    maxWorkers: 2,
  },
});
