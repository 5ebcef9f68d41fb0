import { defineConfig } from 'vitest/config';

// The deployment tier (`npm run test:deploy`): the production build (`npm run build`) and the
// image's command under plain node with the production packages only. No server is needed.
export default defineConfig({
  test: {
    include: ['deploy/image-build.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    reporters: ['default'],
  },
});
