import { defineConfig } from 'vitest/config';

/** Live tests with the real agents (npm run test:agents): slow, one agent at a time. */
export default defineConfig({
  test: {
    include: ['test/agents/**/*.live.test.ts'],
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
