// Invariant: `npm run bench [name]` runs one named benchmark (default: redirect; `analytics`, and
// `all` for both in sequence) and exits with its status. The table below is the only list of
// benches and options: `--help` prints it (exit 0), and an unknown name or option prints it on
// stderr (exit 2). `load` is the load kit for a deployment: every argument after it is its own
// (`npm run bench -- load --help`), and its exit code is the process's. Each bench's module is
// imported only when it runs, so no bench pays for another's imports (the load kit measures its own
// CPU).
const redirectBench = async (rows?: 'rules'): Promise<void> => {
  const m = await import('./redirect-bench.ts');
  await m.redirectBench(rows === 'rules' ? { rows: m.RULE_ROWS } : undefined);
};
const analyticsBench = async (): Promise<void> => (await import('./analytics-bench.ts')).analyticsBench();
const aggregatesBench = async (): Promise<void> => (await import('./aggregates-bench.ts')).aggregatesBench();
const webhooksBench = async (): Promise<void> => (await import('./webhooks-bench.ts')).webhooksBench();
const retentionBench = async (): Promise<void> => (await import('./retention-bench.ts')).retentionBench();
const dashboardBench = async (): Promise<void> => (await import('./dashboard-bench.ts')).dashboardBench();

interface Bench {
  summary: string;
  run: () => Promise<void>;
}

const BENCHES: Readonly<Record<string, Bench>> = {
  redirect: {
    summary:
      'whole click (npm start) and production redirector vs a bare uWS 302 server, then hot, warm, cold, mixed-zipf, unknown, and the link-rule rows (about 9 min)',
    run: () => redirectBench(),
  },
  rules: {
    summary: 'link rules: hot, then 10 rules (none holding, the last holding), a password link with its cookie, a maxClicks link with Redis (about 4 min)',
    run: () => redirectBench('rules'),
  },
  analytics: {
    summary: 'analytics store: ingest, browse, sync and export on chDB (add --quick for a short run), then the aggregates rows',
    run: async () => {
      await analyticsBench();
      await aggregatesBench();
    },
  },
  aggregates: {
    summary: 'aggregates only: rollup vs raw reads over 10M events of one organisation, ingest CPU before/after the view (about 5 min)',
    run: aggregatesBench,
  },
  webhooks: {
    summary:
      'analytics.events webhooks on the production topology: delivery lag at 10,000 clicks/s over 20 endpoints, one endpoint offered it all, CPU per click with endpoints vs none (about 6 min)',
    run: webhooksBench,
  },
  retention: {
    summary: 'retention sweep over 10M events of 4 organisations over a year on chDB: months dropped whole, the rest deleted, an idle sweep (about 3 min)',
    run: retentionBench,
  },
  dashboard: { summary: 'first load of the dashboard Links page with 10,000 links in Chromium, cold and warm (about 1 min)', run: dashboardBench },
  load: {
    summary: 'load-test a deployment: --target URL at a fixed --rate, open loop, with a report (its options: npm run bench -- load --help)',
    run: async () => {
      process.stderr.write('load takes its own options, after it: npm run bench -- load --target URL … (npm run bench -- load --help)\n');
      process.exit(2);
    },
  },
  all: {
    summary: 'redirect, then analytics',
    run: async () => {
      await redirectBench();
      await analyticsBench();
      await aggregatesBench();
    },
  },
};

const OPTIONS: readonly [string, string][] = [
  ['--quick', 'analytics: smaller sizes (an explicit BENCH_* variable still wins)'],
  ['--help, -h', 'print this help and exit'],
];

const ENVIRONMENT: readonly [string, string][] = [
  ['BENCH_EVENTS', 'analytics: events generated for browse, sync and export'],
  ['BENCH_INGEST_EVENTS, BENCH_INGEST_ROUNDS', 'analytics: hits per ingest round, and rounds'],
  ['BENCH_EXPORT_ROWS', 'analytics: target size of the export range'],
  ['BENCH_REPS, BENCH_SCENARIO_BUDGET_MS', 'analytics: timed repetitions per page scenario, and their time budget'],
  ['BENCH_AGG_EVENTS, BENCH_AGG_REPS, BENCH_AGG_INGEST_ROUNDS', 'aggregates: events of the one organisation, timed reads per row, 50,000-event insert rounds'],
  ['BENCH_RETENTION_EVENTS', 'retention: events generated over 365 days'],
  ['BENCH_MERGE_WAIT_MS', 'analytics: longest wait for background merges'],
  ['BENCH_DASHBOARD_REPS', 'dashboard: cold and warm loads measured (default 7 each)'],
];

function usage(): string {
  const rows = (list: readonly [string, string][]): string[] => {
    const width = Math.max(...list.map(([k]) => k.length));
    return list.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  };
  return [
    'usage: npm run bench -- [name] [options]',
    '',
    'benches (default: redirect):',
    ...rows(Object.entries(BENCHES).map(([name, b]) => [name, b.summary])),
    '',
    'options:',
    ...rows(OPTIONS),
    '',
    'environment:',
    ...rows(ENVIRONMENT),
    '',
    'Results go to bench/results/; bench/README.md explains the method.',
  ].join('\n');
}

const args = process.argv.slice(2);
if (args[0] === 'load') process.exit(await (await import('./load/load-command.ts')).loadCommand(args.slice(1)));
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`${usage()}\n`);
  process.exit(0);
}
const unknownOption = args.find((a) => a.startsWith('-') && a !== '--quick');
const names = args.filter((a) => !a.startsWith('-'));
const name = names[0] ?? 'redirect';
const bench = BENCHES[name];
if (unknownOption !== undefined || !bench || names.length > 1) {
  const problem = unknownOption !== undefined ? `unknown option '${unknownOption}'` : names.length > 1 ? 'one bench at a time' : `unknown bench '${name}'`;
  process.stderr.write(`${problem}\n\n${usage()}\n`);
  process.exit(2);
}
try {
  await bench.run();
  process.exit(0);
} catch (err) {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
