// Invariant: which suites run in which vitest tier. `npm test` runs every *.test.ts except the
// slower tiers' (each tier's config includes its own list): the end-to-end tier starts whole
// processes (`npm start`, the production entries, the admin CLI) or drives Chromium, the fault
// tier stages outages under load, the deployment tier builds the image's files and renders and
// checks the Kubernetes manifests. `.ci/run` runs them all; the README's Tests section says which
// holds what.
export const E2E_SUITES = [
  // whole processes: npm start, the production entries and topologies, the admin CLI as a process
  'test/production-entries.test.ts',
  'test/production-topology.test.ts',
  'test/start-and-stop.test.ts',
  'test/embedded-mode.test.ts',
  'test/no-address-stored.test.ts',
  'test/clicks-end-to-end.test.ts',
  'test/tracking-switches.test.ts',
  'test/suspended-organisation.test.ts',
  'test/admin-cli*.test.ts',
  'test/migrate-command.test.ts',
  'test/ops-kit.test.ts',
  'test/dashboard/admin-users.test.ts',
  'redirector/main.test.ts',
  'bench/*.test.ts',
  // Chromium
  '**/*-browser.test.ts',
];
export const FAULT_SUITES = ['test/faults/**/*.test.ts'];
export const DEPLOY_SUITES = ['deploy/image-build.test.ts', 'deploy/k8s.test.ts'];
