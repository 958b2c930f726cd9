import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/invariants.ts'],
    globalSetup: ['test/setup/temp-root.ts'],
    testTimeout: 60_000,
  },
});
