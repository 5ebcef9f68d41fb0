import { defineConfig } from 'vitest/config';
import { FAULT_SUITES } from './test/tiers.ts';

// The fault suite (`npm run test:faults`): whole-topology scenarios under wrk load, one file at a
// time, on top of the same global setup as `npm test`.
export default defineConfig({
  test: {
    include: FAULT_SUITES,
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
    reporters: ['default'],
  },
});
