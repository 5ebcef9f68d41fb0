import { defineConfig } from 'vitest/config';
import { DEPLOY_SUITES } from './test/tiers.ts';

// The deployment tier (`npm run test:deploy`): the production build (`npm run build`) and the
// image's command under plain node with the production packages only, and the Kubernetes
// manifests rendered by `kubectl kustomize` and checked. No server is needed.
export default defineConfig({
  test: {
    include: DEPLOY_SUITES,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    reporters: ['default'],
  },
});
