import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The live agent tests need the real agents installed: `npm run test:agents`.
    exclude: ['test/agents/**', 'node_modules/**'],
    // Integration tests start real servers and ptys; keep them from starving each other on 2 cores.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Fails the run if a test saved a session into the real ~/.local/state/corral.
    globalSetup: ['test/real-state-guard.ts'],
  },
});
