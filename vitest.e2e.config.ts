import { defineConfig } from 'vitest/config';
import { E2E_SUITES } from './test/tiers.ts';

// The end-to-end tier (`npm run test:e2e`): whole processes (`npm start`, the production entries
// and topologies, the admin CLI) and the dashboard in Chromium, on the same global setup as
// `npm test`.
export default defineConfig({
  test: {
    include: E2E_SUITES,
    exclude: ['node_modules/**', 'data/**', '.tmp/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // A hang guard, not a speed goal (the admin CLI suites spawn a process per command).
    testTimeout: 90_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
